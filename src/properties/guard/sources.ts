// The guards' own sources, bundled into patchwarden as text (see
// scripts/build.mjs) and written out for each guarded run.
import type { GuardSources } from './session.js';
import sitecustomize from './sitecustomize.py';
import pythonGuard from './patchwarden_guard.py';
import pytestPlugin from './pytest_plugin.py';
import preload from './preload.cjs';

export const GUARD_SOURCES: GuardSources = { sitecustomize, pythonGuard, pytestPlugin, preload };
