import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderFindings } from '../../../../cli/output.js';
import { createLogger } from '../../../../functions/adapters/logger.js';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import { readPlanFile } from '../../../../functions/adapters/plan-file.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import { diffKubeObjects } from '../../../../functions/core/gitops/object-diff.js';
import { buildDigests } from '../../../../functions/core/notify/digest.js';
import { redactText } from '../../../../functions/core/redaction/secrets.js';
import { summarizeTerraformErrors } from '../../../../functions/core/redaction/terraform-diagnostics.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../../functions/core/registry/model.js';
import {
  compactPlan,
  evaluateCompactPlan,
  secretLiteralsOf,
} from '../../../../functions/core/terraform/index.js';
import {
  type Canary,
  leakedCanaries,
  NORMALISED_NAMES,
  newCore,
  plantKubeObjects,
  plantPlan,
  VALUE_CATEGORIES,
} from '../../../helpers/canary-generator.js';
import { context, entry, hashSensitive, NOW, plan } from '../../../helpers/plan-builders.js';

/**
 * Issue 10 §1: canaries planted in every category of secret that masks and names miss, across drift,
 * pending changes, outputs, variables, provider configuration, prior state and diagnostics, then
 * searched for in every output: the compacted plan, findings, table and JSON output, every object
 * of the findings store, digest payloads, log lines and diagnostics summaries.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Everything a scan of this plan puts anywhere a person or a machine can read. */
async function everyOutput(
  plan: Record<string, unknown>,
  stderr: string,
): Promise<{ outputs: Record<string, string>; findings: Finding[] }> {
  const compact = compactPlan(structuredClone(plan), { hashSensitive });
  const evaluation = evaluateCompactPlan(compact, context());
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-canary-'));
  dirs.push(dir);
  const store = createFindingsStore(createFsObjectStore(dir));
  const scan = { scanId: 'scan-canary', startedAt: NOW, now: NOW };
  const recorded = await store.recordWorkspace(
    scan,
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    evaluation.findings,
  );
  // What the runner hands on from Terraform's stderr (runner.ts does exactly this).
  const summary = redactText(summarizeTerraformErrors(stderr) ?? '', secretLiteralsOf(compact));
  const logLines: string[] = [];
  const logger = createLogger({ write: (line) => logLines.push(line) });
  logger.info('plan evaluated', { findings: recorded.history, noise: evaluation.noiseRemoved });
  logger.error('plan failed', { terraformErrors: summary });
  const textLines: string[] = [];
  createLogger({ format: 'text', write: (line) => textLines.push(line) }).info('plan evaluated', {
    first: recorded.history[0],
  });
  const digests = buildDigests({
    scanId: 'scan-canary',
    now: NOW,
    findings: recorded.history,
    fallbackOwner: 'platform',
    settings: DEFAULT_NOTIFICATION_SETTINGS,
  });
  return {
    findings: recorded.history,
    outputs: {
      'compacted plan': JSON.stringify(compact),
      findings: JSON.stringify(evaluation.findings),
      'table output': renderFindings(recorded.history, 'table', NOW),
      'json output': renderFindings(recorded.history, 'json', NOW),
      'markdown output': renderFindings(recorded.history, 'markdown', NOW),
      'sarif output': renderFindings(recorded.history, 'sarif', NOW),
      'stored objects': readTree(dir),
      'digest payloads': JSON.stringify(digests),
      'log lines': [...logLines, ...textLines].join('\n'),
      'diagnostics summary': summary,
    },
  };
}

function readTree(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

function expectNoLeak(canaries: readonly Canary[], outputs: Record<string, string>): void {
  const leaks: string[] = [];
  for (const [where, text] of Object.entries(outputs)) {
    for (const leak of leakedCanaries(canaries, text)) leaks.push(`${leak} → ${where}`);
  }
  expect(leaks).toEqual([]);
}

describe('canary secrets reach no output', () => {
  it('covers every category in every place of a format 1.2 plan', async () => {
    const planted = plantPlan();
    const categories = new Set(planted.canaries.map((canary) => canary.category));
    expect([...categories]).toEqual(
      expect.arrayContaining([
        ...Object.keys(VALUE_CATEGORIES),
        'secret-name',
        ...NORMALISED_NAMES.map((name) => `normalised-name:${name}`),
        'sensitive-variable',
        'sensitive-output',
        'resource-identity',
        'action-input',
      ]),
    );
    const places = new Set(planted.canaries.map((canary) => canary.place.split(/[-\s]/)[0]));
    expect([...places]).toEqual(
      expect.arrayContaining([
        'drift',
        'pending',
        'output',
        'variable',
        'provider',
        'prior',
        'diagnostics',
        'tag',
        'action',
      ]),
    );

    const { outputs, findings } = await everyOutput(planted.plan, planted.stderr);
    expectNoLeak(planted.canaries, outputs);
    // The changes are still reported (as hashes), not dropped: a secret that changed stays visible.
    const drifted = findings.filter((finding) => finding.kind === 'terraform-drift');
    expect(drifted.length).toBeGreaterThan(Object.keys(VALUE_CATEGORIES).length);
    const description = findings.find(
      (finding) =>
        finding.resource !== undefined &&
        'address' in finding.resource &&
        finding.resource.address === 'aws_sqs_queue.drift_jwt',
    );
    expect(description?.drift?.changes).toEqual([
      expect.objectContaining({
        path: 'description',
        sensitive: true,
        after: expect.stringMatching(/^\(sensitive:/),
      }),
    ]);
    // The diagnostics keep their words; only the secrets go.
    expect(outputs['diagnostics summary']).toContain(
      'failed to connect using postgres://app:(redacted)@db.internal',
    );
  });

  it('hashes every attribute of secret-holding types in plans without masks, and says so', async () => {
    const planted = plantPlan({ formatVersion: '0.1' });
    const { outputs, findings } = await everyOutput(planted.plan, planted.stderr);
    expectNoLeak(planted.canaries, outputs);
    expect(planted.canaries.some((canary) => canary.category === 'maskless-0x')).toBe(true);
    const innocent = findings.find(
      (finding) =>
        finding.resource !== undefined &&
        'address' in finding.resource &&
        finding.resource.address === 'aws_lambda_function.innocent',
    );
    expect(innocent?.evidence.redaction).toMatch(/no sensitivity masks \(format 0\.x\)/);
    expect(innocent?.drift?.changes.every((change) => change.sensitive)).toBe(true);
  });

  it('redacts the same on the streaming path (plans above 16 MiB), sensitive literals included', async () => {
    const planted = plantPlan();
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch-canary-stream-'));
    dirs.push(dir);
    const file = join(dir, 'plan.json');
    writeFileSync(file, JSON.stringify(planted.plan));
    const streamed = await readPlanFile(file, { hashSensitive, inMemoryLimitBytes: 0 });
    const inMemory = compactPlan(structuredClone(planted.plan), { hashSensitive });
    expect(JSON.stringify(streamed)).toBe(JSON.stringify(inMemory));
    expect(secretLiteralsOf(streamed)).toEqual(secretLiteralsOf(inMemory));
    expect(secretLiteralsOf(streamed).length).toBeGreaterThan(0);
    expectNoLeak(planted.canaries, { 'streamed compacted plan': JSON.stringify(streamed) });
  });

  it('would catch a leak: the same outputs without redaction contain the canaries', () => {
    const planted = plantPlan();
    const leaks = leakedCanaries(planted.canaries, JSON.stringify(planted.plan) + planted.stderr);
    expect(leaks.length).toBe(planted.canaries.length);
  });

  it('an incomplete plan names its deferred changes, and nothing of their values or secret keys', async () => {
    // terraform v1.14 jsonplan.DeferredResourceChange: {reason, resource_change}, with complete: false.
    const canaries: Canary[] = [];
    const plant = (category: string, place: string) => {
      const core = newCore();
      canaries.push({ category, place, core });
      return core;
    };
    const webhook = VALUE_CATEGORIES['slack-webhook']!(plant('slack-webhook', 'deferred-instance-key'));
    const deferredEntry = {
      ...entry(`aws_sns_topic_subscription.alert[${JSON.stringify(webhook)}]`, {
        actions: ['create'],
        after: { endpoint: webhook, topic_arn: `arn:${plant('deferred-value', 'deferred-after')}` },
      }),
    };
    deferredEntry.change = {
      ...deferredEntry.change,
      importing: { identity: { arn: plant('resource-identity', 'deferred-import-identity') } },
    };
    const raw = {
      ...plan({ complete: false }),
      deferred_changes: [{ reason: 'provider_config_unknown', resource_change: deferredEntry }],
    };
    const { outputs, findings } = await everyOutput(raw, '');
    expectNoLeak(canaries, outputs);
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.plan-incomplete']);
    expect(findings[0]?.detail).toContain('deferred 1 change(s)');
    expect(findings[0]?.evidence.deferredAddresses).toEqual([
      'aws_sns_topic_subscription.alert["https://hooks.slack.com/services/(redacted)"]',
    ]);
  });

  it('leaves nothing of cluster objects: env values and ConfigMap data', () => {
    const planted = plantKubeObjects();
    const changes = planted.desired.flatMap((desired, index) =>
      diffKubeObjects(desired as never, planted.live[index] as never, { mode: 'full', hashSensitive }),
    );
    expect(changes.length).toBeGreaterThan(0);
    expectNoLeak(planted.canaries, { 'cluster changes': JSON.stringify(changes) });
    expect(changes.some((change) => change.sensitive)).toBe(true);
  });
});
