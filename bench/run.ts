/**
 * `npm run bench`: every benchmark, one after the other (they would disturb each other's timings
 * in parallel). Each prints ratios against a baseline measured in the same run.
 */
import { run as backendRequests } from './backend-requests.js';
import { run as cli } from './cli.js';
import { run as evaluatePlan } from './evaluate-plan.js';
import { run as iamDiff } from './iam-diff.js';
import { run as notifications } from './notifications.js';
import { run as scanOverhead } from './scan-overhead.js';

await evaluatePlan();
await iamDiff();
await cli();
await scanOverhead();
await backendRequests();
await notifications();
