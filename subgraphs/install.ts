// Owns what every process installs before it serves or works: the seams core/ cannot fill itself, because the code
// behind them lives in the subgraphs. Each entry point calls installDomain() once, explicitly (main.ts, jobs/main.ts,
// subgraphs/*/main.ts, subgraphs/twins/tools/main.ts, bench/run.ts, the tests' setup file); nothing installs itself on
// import. What needs no installation is a list read where it is used: the duty catalogue
// (domain/duty-catalogue.ts), the scrubber's term sources
// (domain/memory/scrubber.ts).
import { installAuditHooks } from '../core/audit'
import { installErrorFactories } from '../core/errors'
import { VENDOR_ERROR_FACTORIES } from '../domain/adapters'
import { installAdapters } from '../domain/adapters'
import { notebookAdapter } from '../domain/notebook'
import { qmsAdapter } from '../domain/qms'
import { literatureAdapter } from '../domain/literature'
import { TWIN_AUDIT_HOOKS } from '../domain/audit'
import { installHarnessLookup, installTwinToolAllowlist } from '../domain/twins'
import { getHarness } from './twins/harness/registry'
import { twinToolAllowlist } from './twins/tools/allowlist-hash'

/**
 * Installs the audit hooks (a triggerable action fires twin runs, a pause action pauses twins, a program write
 * recomputes open stage gates), the vendor error factories (`new DomainError('RateLimited')` is a RateLimited), and
 * the connector adapter of each provider, and the twins' harness lookup and tool allow-list.
 * Idempotent.
 */
export function installDomain(): void {
  installAuditHooks(TWIN_AUDIT_HOOKS)
  installErrorFactories(VENDOR_ERROR_FACTORIES)
  // The adapter registry sits below the providers' folders, which import its contract.
  installAdapters({
    eln_provider: notebookAdapter,
    qms_provider: qmsAdapter,
    literature_search: literatureAdapter,
  })
  // The twins' domain runs harnesses and hashes tool allow-lists that live above it (harness/, tools/).
  installHarnessLookup(getHarness)
  installTwinToolAllowlist(twinToolAllowlist)
}
