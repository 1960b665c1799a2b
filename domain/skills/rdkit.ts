// RDKit MinimalLib (wasm), loaded once per process. Every wasm object (Mol, MolList,
// RGroupDecomposition, R-group row values) must be released with .delete(); `withMols` helps.
import type { MainModule, Mol } from '@rdkit/rdkit'

export type RDKitModule = MainModule
export type RDKitMol = Mol

let loading: Promise<RDKitModule> | null = null
let loaded: RDKitModule | null = null

export function loadRdkit(): Promise<RDKitModule> {
  if (!loading) {
    loading = import('@rdkit/rdkit')
      .then((m) => m.default())
      .then((mod) => {
        loaded = mod
        return mod
      })
      .catch((e) => {
        loading = null
        throw e
      })
  }
  return loading
}

/** RDKit version once loaded (e.g. '2026.09.1'), else null. */
export function rdkitVersion(): string | null {
  return loaded ? loaded.version() : null
}

/** Delete wasm objects, ignoring nulls and already-deleted handles. */
export function release(...objs: Array<{ delete(): void; isDeleted?(): boolean } | null | undefined>): void {
  for (const o of objs) {
    if (!o) continue
    if (o.isDeleted && o.isDeleted()) continue
    o.delete()
  }
}
