import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AddTagsToResourceCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  canary,
  REGION,
  REPO_ROOT,
  runCli,
  STATE_BUCKET,
  useMoto,
  useTempDir,
} from '../helpers/integration.js';

/**
 * Terraform 1.11 puts secrets in places older plans did not: write-only arguments fed by an ephemeral
 * variable, a sensitive value as the instance key of a resource and of a module (`for_each` over
 * `nonsensitive(var.tenant_token)`, so every address carries it), a failing check block that prints
 * it, a sensitive output. Real Terraform applies test/integration/terraform/hostile-plan against moto,
 * changes are made out of band, and `evaluate-plan` must show the drift in every format without any
 * canary in stdout or in stderr with --debug.
 */
useMoto();
const temp = useTempDir();
const tenantToken = canary('tenant-token');
const ephemeralPassword = canary('ephemeral-password');
const outOfBandSecret = canary('oob-secret');
const outOfBandParameter = canary('oob-parameter');
const seedSecret = canary('seed-secret');
const CANARIES = [tenantToken, ephemeralPassword, outOfBandSecret, outOfBandParameter, seedSecret];
const FORMATS = ['json', 'table', 'markdown', 'sarif'] as const;
const SALT_ENV = { DRIFTWATCH_HASH_SALT: 'integration-test-salt-hostile-plan' };
let staged: StagedWorkspace;

beforeAll(async () => {
  staged = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/hostile-plan'),
    backend: { bucket: STATE_BUCKET, key: 'hostile-plan/terraform.tfstate', region: REGION },
    env: {
      TF_VAR_tenant_token: tenantToken,
      TF_VAR_eph_password: ephemeralPassword,
      TF_VAR_seed_value: seedSecret,
    },
  });
  await staged.terraform(['apply', '-auto-approve', '-input=false']);
}, 300_000);

afterAll(async () => {
  await staged?.dispose();
});

/** `terraform plan -refresh-only -out=…` then `terraform show -json`: the file evaluate-plan reads. */
async function refreshOnlyPlan(name: string): Promise<string> {
  await staged.terraform(['plan', '-refresh-only', '-lock=false', '-input=false', `-out=${name}.tfplan`]);
  const file = join(temp.path, `${name}.json`);
  const shown = await runProcess('terraform', ['show', '-json', `${name}.tfplan`], {
    cwd: staged.dir,
    env: staged.env,
    timeoutMs: 120_000,
    stdoutFile: file,
  });
  expect(shown.exitCode).toBe(0);
  return file;
}

async function evaluate(file: string, format: (typeof FORMATS)[number]) {
  return runCli(['evaluate-plan', file, '--format', format, '--debug'], { env: SALT_ENV });
}

function addressOf(finding: Finding): string {
  return finding.resource && 'address' in finding.resource ? finding.resource.address : '';
}

describe('a Terraform 1.11 plan with secrets in its unusual places', () => {
  it('the first refresh after apply: write-only arguments and ephemeral values are no drift; the failing check is said, its token redacted', async () => {
    const file = await refreshOnlyPlan('first');
    const plan = readFileSync(file, 'utf8');
    // The token is in the plan (addresses, variables, the check's message): the test can fail.
    expect(plan).toContain(tenantToken);
    // Terraform itself keeps ephemeral values out of the plan.
    expect(plan).not.toContain(ephemeralPassword);
    const run = await evaluate(file, 'json');
    expect(run.stderr).not.toContain(tenantToken);
    expect(run.stdout).not.toContain(tenantToken);
    // No drift: the one finding is the check block that fails on purpose (its message names the token).
    const findings = JSON.parse(run.stdout) as Finding[];
    expect(findings.map((finding) => [finding.ruleId, finding.resource])).toEqual([
      ['drift.check-failed', { address: 'check.token_length', type: 'check' }],
    ]);
    expect(findings[0]?.evidence.messages).toEqual(['token too long: (redacted)']);
    expect(run.code).toBe(2);
  }, 120_000);

  it('out-of-band changes are found in every format, with no secret in stdout or stderr', async () => {
    const ssm = new SSMClient({});
    const secrets = new SecretsManagerClient({});
    const tokenName = `/hostile/tenant/${md5(tenantToken)}`;
    await ssm.send(
      new PutParameterCommand({ Name: tokenName, Value: 'v2', Type: 'String', Overwrite: true }),
    );
    await ssm.send(
      new AddTagsToResourceCommand({
        ResourceType: 'Parameter',
        ResourceId: `/hostile/module/${md5(`module-${tenantToken}`)}`,
        Tags: [{ Key: 'Owner', Value: 'someone-else' }],
      }),
    );
    await ssm.send(
      new PutParameterCommand({
        Name: '/hostile/wo',
        Value: outOfBandParameter,
        Type: 'SecureString',
        Overwrite: true,
      }),
    );
    await secrets.send(new PutSecretValueCommand({ SecretId: 'hostile-wo', SecretString: outOfBandSecret }));
    await ssm.send(
      new AddTagsToResourceCommand({
        ResourceType: 'Parameter',
        ResourceId: '/hostile/tagged',
        Tags: [{ Key: 'Team', Value: 'b' }],
      }),
    );

    const file = await refreshOnlyPlan('changed');
    const plan = readFileSync(file, 'utf8');
    expect(plan).toContain(tenantToken);
    // The copy is a plain tag of aws_ssm_parameter.tagged: nothing in the plan masks it there.
    expect(plan).toContain(`"FromData":"${seedSecret}"`);

    for (const format of FORMATS) {
      const run = await evaluate(file, format);
      expect(run.code, `${format}: ${run.stderr}`).toBe(2);
      for (const secret of CANARIES) {
        expect(run.stdout, `${format} stdout`).not.toContain(secret);
        expect(run.stderr, `${format} stderr`).not.toContain(secret);
      }
    }

    const findings = JSON.parse((await evaluate(file, 'json')).stdout) as Finding[];
    const byAddress = new Map(findings.map((finding) => [addressOf(finding), finding]));
    const hashedKey = /\["\(sensitive:[0-9a-f]{8}\)"\]/;
    const tokenKeyed = findings.filter((finding) => hashedKey.test(addressOf(finding)));
    expect(tokenKeyed.map(addressOf).sort()).toEqual([
      expect.stringMatching(/^aws_ssm_parameter\.per_tenant\["\(sensitive:[0-9a-f]{8}\)"\]$/),
      expect.stringMatching(/^module\.tenant\["\(sensitive:[0-9a-f]{8}\)"\]\.aws_ssm_parameter\.p$/),
    ]);
    expect(tokenKeyed.flatMap((finding) => finding.drift?.changes.map((change) => change.path))).toEqual(
      expect.arrayContaining(['value', 'tags.Owner']),
    );
    // Write-only values are not in state: the out-of-band write shows as the version it bumped.
    expect(byAddress.get('aws_ssm_parameter.wo')?.drift?.changes.map((change) => change.path)).toEqual([
      'version',
    ]);
    expect(
      byAddress.get('aws_secretsmanager_secret_version.wo')?.drift?.changes.map((change) => change.path),
    ).toEqual(['version_stages[0]']);
    expect(byAddress.has('aws_ssm_parameter.per_tenant["public"]')).toBe(false);
    const tagged = byAddress.get('aws_ssm_parameter.tagged');
    expect(tagged?.drift?.changes).toEqual([
      { path: 'tags.Team', before: 'a', after: 'b', sensitive: false },
    ]);
    expect(tagged?.evidence.tags).toEqual({ Team: 'a' });
  }, 180_000);
});

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}
