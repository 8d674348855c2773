#!/usr/bin/env node
// The driftwatch CLI runs the TypeScript sources directly (tsx), so `npx driftwatch` works right
// after `npm ci` with no build step and never runs stale output.
import { register } from 'tsx/esm/api';

// The SDK warns that releases after January 2027 need Node 22; the versions pinned here run on 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
await import('../cli/main.ts');
