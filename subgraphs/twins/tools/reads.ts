// Owns the tools that read program records for duty templates (filled in with the records contract of issue 11).
import type { ToolDefinition } from './tool'

export const READ_TOOLS: ToolDefinition[] = []
