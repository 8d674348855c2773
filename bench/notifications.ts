/**
 * Benchmark: how many messages and SNS requests owners get from driftwatch's digests, against the
 * naive "one message per finding" of the same findings, in the same run.
 *
 * 1,000 findings across 10 owners over 3 simulated nights: the first night (all new), an unchanged
 * night, and a night where 5% of the findings changed value. The lifecycle, digests and publisher
 * are the real ones; SNS is a local moto_server.
 *
 * Run: `node bin/run-ts.js bench/notifications.ts` (or `npm run bench`). Prints counts; asserts nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SNSClient } from '@aws-sdk/client-sns';
import { createOwnerInboxes } from '../cli/demo/chat-inbox.js';
import { motoEnvironment, startMoto } from '../cli/demo/moto.js';
import { createFsObjectStore } from '../functions/adapters/object-store/fs-object-store.js';
import { createSnsPublisher } from '../functions/adapters/sns-publisher.js';
import { createFindingsStore } from '../functions/core/findings/findings-store.js';
import { NOTIFIED_STATUSES } from '../functions/core/findings/lifecycle.js';
import type { Finding, FindingDraft } from '../functions/core/findings/model.js';
import { notifyOwners } from '../functions/core/notify/notify-owners.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../functions/core/registry/model.js';

const FINDINGS = 1_000;
const OWNERS = 10;
const WORKSPACES_PER_OWNER = 5;
const CHANGED_SHARE = 0.05;

function draft(index: number, night: number): FindingDraft {
  const owner = `team-${index % OWNERS}`;
  const workspace = `${owner}-ws-${Math.floor(index / OWNERS) % WORKSPACES_PER_OWNER}`;
  // On night 3, 5% of the findings have a new value, spread over every owner.
  const value =
    night === 3 && Math.floor(index / OWNERS) % Math.round(1 / CHANGED_SHARE) === 0 ? 'changed' : 'original';
  return {
    kind: 'terraform-drift',
    ruleId: 'drift.update',
    severity: index % 7 === 0 ? 'high' : 'medium',
    workspace,
    owner,
    environment: 'prod',
    resource: { address: `aws_s3_bucket.b${index}`, type: 'aws_s3_bucket' },
    drift: {
      action: 'update',
      changes: [{ path: 'tags.Owner', before: 'declared', after: value, sensitive: false }],
    },
    title: `aws_s3_bucket.b${index} changed outside Terraform: tags.Owner`,
    detail: 'tag changed',
    evidence: {},
    remediation: {
      summary: 'revert or adopt',
      steps: ['Revert through the pipeline', 'Adopt in configuration'],
    },
  };
}

export async function run(): Promise<void> {
  console.log(
    `\n## notifications: ${FINDINGS} findings, ${OWNERS} owners, 3 nights (first, unchanged, ${CHANGED_SHARE * 100}% changed)`,
  );
  const moto = await startMoto();
  const dir = await mkdtemp(join(tmpdir(), 'driftwatch-bench-notify-'));
  try {
    Object.assign(process.env, motoEnvironment(moto.endpoint));
    const owners = Array.from({ length: OWNERS }, (_, index) => `team-${index}`);
    const inboxes = await createOwnerInboxes(owners);
    const objects = createFsObjectStore(dir);
    const store = createFindingsStore(objects);
    const rows: string[][] = [];
    for (const night of [1, 2, 3]) {
      const now = new Date(Date.UTC(2026, 10, night, 2));
      const scan = { scanId: `night-${night}`, startedAt: now, now };
      const byWorkspace = new Map<string, FindingDraft[]>();
      for (let index = 0; index < FINDINGS; index++) {
        const item = draft(index, night);
        byWorkspace.set(item.workspace, [...(byWorkspace.get(item.workspace) ?? []), item]);
      }
      const history: Finding[] = [];
      for (const [workspace, drafts] of byWorkspace) {
        history.push(
          ...(await store.recordWorkspace(scan, { workspace, check: 'terraform', outcome: 'ok' }, drafts))
            .history,
        );
      }
      const publisher = createSnsPublisher(new SNSClient({}), { topicArn: inboxes.topicArn });
      const result = await notifyOwners(
        {
          scanId: scan.scanId,
          now,
          findings: history,
          fallbackOwner: 'team-0',
          settings: DEFAULT_NOTIFICATION_SETTINGS,
        },
        { publisher, store: objects },
      );
      let delivered = 0;
      for (const owner of owners) delivered += (await inboxes.drain(owner)).length;
      const naive = history.filter((finding) => NOTIFIED_STATUSES.has(finding.status)).length;
      const ownersWithNews = new Set(
        history.filter((finding) => NOTIFIED_STATUSES.has(finding.status)).map((f) => f.owner),
      ).size;
      rows.push([
        `night ${night}`,
        String(ownersWithNews),
        String(result.sent.length),
        String(delivered),
        String(publisher.requests),
        String(naive),
        naive === 0 ? '-' : `${(naive / Math.max(1, result.sent.length)).toFixed(0)}x fewer`,
      ]);
    }
    console.log(
      '| night | owners with news | digests published | messages delivered | SNS requests | naive (one per finding) | |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---|');
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    console.log('goal: one message per owner with news, zero on the unchanged night');
  } finally {
    await rm(dir, { recursive: true, force: true });
    await moto.stop();
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  await run();
}
