// The test stack's one installation of the domain (subgraphs/install.ts), as every entry point does at start: each
// test file runs in its own process, and servers, workers and domain calls in it see the audit hooks and the vendor
// error factories whatever the file imports.
import { installDomain } from '../../subgraphs/install'

installDomain()
