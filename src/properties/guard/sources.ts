// The guards' own sources, bundled into patchwarden as text (see
// scripts/build.mjs) and written out for each guarded run.
import type { GuardSources } from './session.js';
import sitecustomize from './sitecustomize.py';
import pythonGuard from './patchwarden_guard.py';
import pytestPlugin from './pytest_plugin.py';
// No such file among the sources: the build bundles the modules of node/
// into it (scripts/guard-preload.mjs).
import preload from './node/preload.bundle.cjs';

export const GUARD_SOURCES: GuardSources = { sitecustomize, pythonGuard, pytestPlugin, preload };
