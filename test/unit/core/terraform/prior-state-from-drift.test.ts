import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPlanStream } from '../../../../functions/adapters/plan-file.js';
import { compactPlan, secretLiteralsOf } from '../../../../functions/core/terraform/index.js';
import {
  entry,
  hashSensitive,
  plan,
  ssmMask,
  ssmParameterValues,
  stateResource,
} from '../../../helpers/plan-builders.js';

/**
 * A drifted resource's prior_state entry repeats its resource_drift `after` (Terraform writes both
 * from the refreshed state): it is read from the drift entry, and the streaming reader skips the
 * prior_state copy unparsed. Both reading paths, compact or pretty-printed, must give one result.
 */
const SECRET = 'CNRY-drifted-secure-string-9f2c';

function driftedSecretPlan(priorValues = ssmParameterValues(SECRET, { tags: { Team: 'b' } })) {
  const address = 'aws_ssm_parameter.db';
  return plan({
    drift: [
      entry(address, {
        actions: ['update'],
        before: ssmParameterValues(SECRET, { tags: { Team: 'a' } }),
        after: ssmParameterValues(SECRET, { tags: { Team: 'b' } }),
        beforeSensitive: ssmMask,
        afterSensitive: ssmMask,
      }),
      // The secret copied in plaintext (`nonsensitive()`) into another resource's tag, which drifted.
      entry('aws_sqs_queue.jobs', {
        actions: ['update'],
        before: { id: 'jobs', name: 'jobs', tags: { Copy: 'old' } },
        after: { id: 'jobs', name: 'jobs', tags: { Copy: SECRET } },
        beforeSensitive: { tags: {} },
        afterSensitive: { tags: {} },
      }),
    ],
    prior: [
      stateResource(address, priorValues, ssmMask),
      stateResource('aws_sqs_queue.jobs', { id: 'jobs', name: 'jobs', tags: { Copy: SECRET } }, { tags: {} }),
      stateResource('aws_sqs_queue.quiet', { id: 'quiet', name: 'quiet' }),
    ],
  });
}

async function bothWays(raw: unknown) {
  const whole = compactPlan(raw, { hashSensitive });
  for (const text of [JSON.stringify(raw), JSON.stringify(raw, null, 2)]) {
    const streamed = await readPlanStream(Readable.from([Buffer.from(text)]), { hashSensitive });
    expect(streamed).toEqual(whole);
    expect(secretLiteralsOf(streamed)).toEqual(secretLiteralsOf(whole));
  }
  return whole;
}

describe('prior_state entries of drifted resources', () => {
  it('know the drifted resource’s secret from its drift entry, so a plaintext copy elsewhere is hashed', async () => {
    const compact = await bothWays(driftedSecretPlan());
    expect(secretLiteralsOf(compact)).toContain(SECRET);
    const copy = compact.drift.find((change) => change.address === 'aws_sqs_queue.jobs')!.changes[0]!;
    expect(copy).toMatchObject({ path: 'tags.Copy', sensitive: true, after: hashSensitive(SECRET) });
    expect(JSON.stringify(compact)).not.toContain(SECRET);
  });

  it('list every managed resource once, by address, drifted or not', async () => {
    const compact = await bothWays(driftedSecretPlan());
    expect(compact.managedResources.map((resource) => resource.address)).toEqual([
      'aws_sqs_queue.jobs',
      'aws_sqs_queue.quiet',
      'aws_ssm_parameter.db',
    ]);
  });

  it('take identity from the drift entry (the prior_state copy of a drifted resource is not read)', async () => {
    // Terraform never writes the two differently; a plan that does shows which one is read.
    const compact = await bothWays(
      driftedSecretPlan(ssmParameterValues(SECRET, { name: '/elsewhere', id: '/elsewhere' })),
    );
    const parameter = compact.managedResources.find(
      (resource) => resource.address === 'aws_ssm_parameter.db',
    );
    expect(parameter?.values.id).not.toBe('/elsewhere');
  });

  it('read prior_state as before when the drift entry is a deposed object', async () => {
    const raw = driftedSecretPlan();
    const drift = raw.resource_drift as Array<Record<string, unknown>>;
    drift[0] = { ...drift[0], deposed: '00000001' };
    const compact = await bothWays(raw);
    expect(secretLiteralsOf(compact)).toContain(SECRET);
    expect(compact.managedResources.map((resource) => resource.address)).toContain('aws_ssm_parameter.db');
  });

  it('read prior_state as before when it comes first in the document', async () => {
    const raw = driftedSecretPlan();
    const { prior_state, ...rest } = raw;
    const compact = await bothWays({ prior_state, ...rest });
    expect(secretLiteralsOf(compact)).toContain(SECRET);
    expect(JSON.stringify(compact)).not.toContain(SECRET);
  });
});
