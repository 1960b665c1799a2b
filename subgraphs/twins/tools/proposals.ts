// Owns the propose_* tools: each files a proposal through fileProposal (issue 11), which computes its basis_hash.
import type { ToolDefinition } from './tool'

export const PROPOSE_TOOLS: ToolDefinition[] = []
