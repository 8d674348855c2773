import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPlanFile } from '../../functions/adapters/plan-file.js';
import { SENSITIVE_MARKER } from '../../functions/core/redaction/secrets.js';
import { compactPlan, type EvaluationResult, evaluatePlan } from '../../functions/core/terraform/index.js';
import { context, hashSensitive } from '../helpers/plan-builders.js';
import { FIXTURES_DIR, fixturePath, PLAN_FIXTURES, readFixture } from './fixture-paths.js';

function evaluateFixture(name: string, overrides: Parameters<typeof context>[0] = {}): EvaluationResult {
  return evaluatePlan(readFixture(name), { ...context(overrides), hashSensitive });
}

function summary(result: EvaluationResult) {
  return result.findings.map((finding) => ({
    kind: finding.kind,
    ruleId: finding.ruleId,
    severity: finding.severity,
    address: (finding.resource as { address?: string } | undefined)?.address,
    action: finding.drift?.action,
    changes: finding.drift?.changes,
  }));
}

describe('golden: every plan fixture', () => {
  it('the list covers every plan in the fixtures folder', () => {
    const plans: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/(^plan|^output)\.json$/.test(name)) plans.push(relative(FIXTURES_DIR, path));
      }
    };
    walk(FIXTURES_DIR);
    expect(plans.sort()).toEqual([...PLAN_FIXTURES].sort());
  });

  it('drift_refresh_only: one drift.update of the string attribute', () => {
    const result = evaluateFixture('opentofu/equivalence/drift_refresh_only/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'terraform-drift',
        ruleId: 'drift.update',
        severity: 'medium',
        address: 'tfcoremock_simple_resource.drift',
        action: 'update',
        changes: [{ path: 'string', before: 'Hello, world!', after: 'Hello, drift!', sensitive: false }],
      },
    ]);
    expect(result.findings[0]?.title).toBe(
      'tfcoremock_simple_resource.drift changed outside Terraform: string',
    );
    expect(result.findings[0]?.resource).toEqual({
      address: 'tfcoremock_simple_resource.drift',
      type: 'tfcoremock_simple_resource',
      provider: 'registry.opentofu.org/hashicorp/tfcoremock',
    });
    expect(result.plan).toEqual({
      formatVersion: '1.2',
      errored: false,
      complete: true,
      managedResourceCount: 1,
      reportedDeletions: 0,
    });
  });

  it('drift_simple: the resource_changes entry only reverts the drift, so no pending-change', () => {
    const result = evaluateFixture('opentofu/equivalence/drift_simple/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'terraform-drift',
        ruleId: 'drift.update',
        severity: 'medium',
        address: 'tfcoremock_simple_resource.drift',
        action: 'update',
        changes: [{ path: 'string', before: 'Hello, world!', after: 'Hello, drift!', sensitive: false }],
      },
    ]);
  });

  it('drift_relevant_attributes: reverting paths are dropped, new configuration is pending', () => {
    const result = evaluateFixture('opentofu/equivalence/drift_relevant_attributes/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'pending-change',
        ruleId: 'pending.update',
        severity: 'medium',
        address: 'tfcoremock_simple_resource.base',
        action: 'update',
        // `number` 1→0 only reverts the drift; `string` goes to a new configured value.
        changes: [{ path: 'string', before: 'Hello, drift!', after: 'Hello, change!', sensitive: false }],
      },
      {
        kind: 'terraform-drift',
        ruleId: 'drift.update',
        severity: 'medium',
        address: 'tfcoremock_simple_resource.base',
        action: 'update',
        changes: [
          { path: 'number', before: 0, after: 1, sensitive: false },
          { path: 'string', before: 'Hello, world!', after: 'Hello, drift!', sensitive: false },
        ],
      },
      {
        kind: 'pending-change',
        ruleId: 'pending.update',
        severity: 'medium',
        address: 'tfcoremock_simple_resource.dependent',
        action: 'update',
        changes: [{ path: 'string', before: 'Hello, world!', after: 'Hello, change!', sensitive: false }],
      },
    ]);
  });

  it('moved_with_refresh_only: a no-op with previous_address is an info drift.moved, never a move action', () => {
    const result = evaluateFixture('opentofu/equivalence/moved_with_refresh_only/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'terraform-drift',
        ruleId: 'drift.moved',
        severity: 'info',
        address: 'tfcoremock_simple_resource.second',
        action: undefined,
        changes: undefined,
      },
    ]);
    expect(result.findings[0]?.resource).toMatchObject({ movedFrom: 'tfcoremock_simple_resource.first' });
    expect(result.findings[0]?.evidence.previousAddress).toBe('tfcoremock_simple_resource.first');
    expect(result.findings[0]?.title).toBe(
      'tfcoremock_simple_resource.second moved from tfcoremock_simple_resource.first',
    );
  });

  it('local_provider_update: a replace with action_reason and replace_paths; JSON content diffed inside', () => {
    const result = evaluateFixture('opentofu/equivalence/local_provider_update/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'pending-change',
        ruleId: 'pending.replace',
        severity: 'high',
        address: 'local_file.local_file',
        action: 'replace',
        changes: [
          { path: 'content.hello', before: 'world', after: null, sensitive: false },
          { path: 'content.goodbye', before: null, after: 'world', sensitive: false },
          {
            path: 'id',
            before: '2248ee2fa0aaaad99178531f924bf00b4b0a8f4e',
            after: '(known after apply)',
            sensitive: false,
          },
        ],
      },
    ]);
    expect(result.findings[0]?.evidence).toMatchObject({
      actions: ['delete', 'create'],
      actionReason: 'replace_because_cannot_update',
      replacePaths: ['content'],
    });
  });

  it('local_provider_update/delete: sensitive_content is hashed wherever its mask says so', () => {
    for (const name of ['local_provider_update', 'local_provider_delete']) {
      const raw = readFixture(`opentofu/equivalence/${name}/plan.json`);
      // The fixtures hold null there; plant values to prove the mask (not the name) redacts them.
      const change = (
        raw.resource_changes as Array<{ change: Record<string, Record<string, unknown> | null> }>
      )[0]!.change;
      change.before!.sensitive_content = `fixture-plaintext-before-${name}`;
      if (change.after) change.after.sensitive_content = `fixture-plaintext-after-${name}`;
      const compact = compactPlan(raw, { hashSensitive });
      const result = evaluatePlan(raw, { ...context(), hashSensitive });
      expect(JSON.stringify(compact)).not.toContain('fixture-plaintext');
      expect(JSON.stringify(result)).not.toContain('fixture-plaintext');
      if (name === 'local_provider_update') {
        const sensitive = compact.changes[0]!.changes.find((item) => item.path === 'sensitive_content');
        expect(sensitive).toEqual({
          path: 'sensitive_content',
          segments: ['sensitive_content'],
          before: hashSensitive(`fixture-plaintext-before-${name}`),
          after: hashSensitive(`fixture-plaintext-after-${name}`),
          sensitive: true,
        });
        expect(sensitive?.before).toMatch(SENSITIVE_MARKER);
      }
    }
  });

  it('local_provider_delete: a pending delete without attribute changes', () => {
    const result = evaluateFixture('opentofu/equivalence/local_provider_delete/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'pending-change',
        ruleId: 'pending.delete',
        severity: 'high',
        address: 'local_file.local_file',
        action: 'delete',
        changes: [],
      },
    ]);
    expect(result.findings[0]?.evidence.actionReason).toBe('delete_because_no_resource_config');
  });

  it('replace_within_list: a numeric replace path and one changed list element', () => {
    const result = evaluateFixture('opentofu/equivalence/replace_within_list/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'pending-change',
        ruleId: 'pending.replace',
        severity: 'high',
        address: 'tfcoremock_list.list',
        action: 'replace',
        changes: [
          {
            path: 'list[1].id',
            before: '6A8C6A29-D417-480A-BE19-12D7398B3178',
            after: '07F887E2-FDFF-4B2E-9BFB-B6AA4A05EDB9',
            sensitive: false,
          },
        ],
      },
    ]);
    expect(result.findings[0]?.evidence.replacePaths).toEqual(['list[1].id']);
  });

  it('terraform-json/action_reason: a tainted replace (Terraform 1.15) without replace_paths', () => {
    const result = evaluateFixture('terraform-json/action_reason/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'pending-change',
        ruleId: 'pending.replace',
        severity: 'high',
        address: 'null_resource.example',
        action: 'replace',
        changes: [
          { path: 'id', before: '8868159889619753631', after: '(known after apply)', sensitive: false },
        ],
      },
    ]);
    expect(result.findings[0]?.evidence).toMatchObject({
      actionReason: 'replace_because_tainted',
      terraformVersion: '1.15.0',
      formatVersion: '1.2',
    });
    expect(result.findings[0]?.evidence.replacePaths).toBeUndefined();
  });

  it('variables_and_outputs: real output changes are info drift.output; null → [] is noise', () => {
    const result = evaluateFixture('opentofu/equivalence/variables_and_outputs/plan.json');
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity, finding.resource])).toEqual([
      ['drift.output', 'info', { address: 'output.list_no_default', type: 'output' }],
      ['drift.output', 'info', { address: 'output.nested_optional_object', type: 'output' }],
      ['drift.output', 'info', { address: 'output.nested_optional_object_with_default', type: 'output' }],
      [
        'drift.output',
        'info',
        { address: 'output.nested_optional_object_with_embedded_default', type: 'output' },
      ],
    ]);
    expect(result.findings[1]?.drift?.changes).toEqual([
      { path: '', before: null, after: { nested_object: null }, sensitive: false },
    ]);
    expect(result.noiseRemoved).toEqual([
      { rule: 'null-versus-empty', address: 'output.list_empty_default', paths: [''] },
    ]);
    // `variables` and `configuration` never reach the result.
    expect(
      JSON.stringify(
        compactPlan(readFixture('opentofu/equivalence/variables_and_outputs/plan.json'), { hashSensitive }),
      ),
    ).not.toContain('variables');
  });

  it('variables_and_outputs: a sensitive output is hashed', () => {
    const raw = readFixture('opentofu/equivalence/variables_and_outputs/plan.json');
    const outputs = raw.output_changes as Record<string, Record<string, unknown>>;
    outputs.list_no_default!.after_sensitive = true;
    const result = evaluatePlan(raw, { ...context(), hashSensitive });
    const finding = result.findings.find(
      (item) =>
        item.resource && 'address' in item.resource && item.resource.address === 'output.list_no_default',
    );
    expect(finding?.drift?.changes).toEqual([
      {
        path: '',
        before: null,
        after: hashSensitive(outputs.list_no_default!.after as never),
        sensitive: true,
      },
    ]);
    expect(finding?.evidence.sensitive).toBe(true);
    expect(JSON.stringify(result)).not.toContain('D92053D5-948A-4E5E-80BF-E53F0DB33EB5');
  });

  it('show-json/modules (format 1.0): creates in child modules with module on the resource', () => {
    const result = evaluateFixture('opentofu/show-json/modules/output.json');
    expect(
      result.findings.map((finding) => [
        finding.ruleId,
        finding.severity,
        finding.resource,
        finding.drift?.changes,
      ]),
    ).toEqual([
      [
        'pending.create',
        'low',
        {
          address: 'module.module_test_bar.test_instance.test',
          type: 'test_instance',
          provider: 'registry.opentofu.org/hashicorp/test',
          module: 'module.module_test_bar',
        },
        [{ path: 'ami', before: null, after: 'bar-var', sensitive: false }],
      ],
      ...[0, 1, 2].map((index) => [
        'pending.create',
        'low',
        {
          address: `module.module_test_foo.test_instance.test[${index}]`,
          type: 'test_instance',
          provider: 'registry.opentofu.org/hashicorp/test',
          module: 'module.module_test_foo',
        },
        [{ path: 'ami', before: null, after: 'baz', sensitive: false }],
      ]),
      [
        'drift.output',
        'info',
        { address: 'output.test', type: 'output' },
        [{ path: '', before: null, after: 'baz', sensitive: false }],
      ],
    ]);
    expect(result.plan.formatVersion).toBe('1.0');
  });

  it('show-json/plan-error: errored → exactly one scan-failed finding', () => {
    const result = evaluateFixture('opentofu/show-json/plan-error/output.json');
    expect(summary(result)).toEqual([
      {
        kind: 'scan-failed',
        ruleId: 'scan.plan-errored',
        severity: 'high',
        address: undefined,
        action: undefined,
        changes: undefined,
      },
    ]);
  });

  it('013_module_depends_on (format 0.1, no masks): data reads are never findings', () => {
    const result = evaluateFixture('terraform-json/013_module_depends_on/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'pending-change',
        ruleId: 'pending.create',
        severity: 'low',
        address: 'module.foo.null_resource.resource',
        action: 'create',
        changes: [{ path: 'triggers', before: null, after: { number: 'one' }, sensitive: false }],
      },
      {
        kind: 'pending-change',
        ruleId: 'pending.create',
        severity: 'low',
        address: 'null_resource.bar',
        action: 'create',
        changes: [],
      },
    ]);
    expect(result.plan).toMatchObject({ formatVersion: '0.1', terraformVersion: '0.13.1' });
  });

  it('data_read: the data source read is not a finding; creates are pending', () => {
    const result = evaluateFixture('opentofu/equivalence/data_read/plan.json');
    const addresses = result.findings.map((finding) => (finding.resource as { address: string }).address);
    expect(addresses).toEqual([
      'module.create.local_file.data_file',
      'module.create.random_integer.random',
      'tfcoremock_simple_resource.create',
    ]);
    expect(addresses.some((address) => address.startsWith('data.'))).toBe(false);
    expect(
      compactPlan(readFixture('opentofu/equivalence/data_read/plan.json'), { hashSensitive }).changes.map(
        (change) => change.mode,
      ),
    ).toEqual(['managed', 'managed', 'managed']);
  });

  // The import also sets age and name: those are judged as any pending update is (medium), not as
  // the import alone (info); the identity fields Terraform 1.13 adds are never changes.
  it('identity (Terraform 1.13, importing): an import that also sets attributes is pending.import judged as an update, identity fields ignored', () => {
    const result = evaluateFixture('terraform-json/identity/plan.json');
    expect(summary(result)).toEqual([
      {
        kind: 'pending-change',
        ruleId: 'pending.import',
        severity: 'medium',
        address: 'corner_user_identity.user',
        action: 'update',
        changes: [
          { path: 'age', before: null, after: 999, sensitive: false },
          { path: 'name', before: null, after: 'test', sensitive: false },
        ],
      },
    ]);
    expect(result.findings[0]?.evidence.importing).toBe(true);
    expect(result.findings[0]?.evidence.severityReasons).toEqual(['base: pending.update is medium']);
  });

  it('outside production the same drift ranks one level lower (info stays info)', () => {
    const drift = evaluateFixture('opentofu/equivalence/drift_refresh_only/plan.json', {
      environment: 'dev',
    });
    expect(drift.findings[0]?.severity).toBe('low');
    const moved = evaluateFixture('opentofu/equivalence/moved_with_refresh_only/plan.json', {
      environment: 'dev',
    });
    expect(moved.findings[0]?.severity).toBe('info');
  });
});

describe('readPlanFile: the streaming path produces exactly the in-memory CompactPlan', () => {
  const inMemory = (path: string) => readPlanFile(path, { hashSensitive });
  const streamed = (path: string, streamChunkBytes?: number) =>
    readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1, streamChunkBytes });

  it('for every plan fixture', async () => {
    for (const name of PLAN_FIXTURES) {
      const expected = await inMemory(fixturePath(name));
      expect(await streamed(fixturePath(name)), name).toEqual(expected);
      expect(await streamed(fixturePath(name), 13), name).toEqual(expected);
      expect(expected).toEqual(compactPlan(readFixture(name), { hashSensitive }));
    }
  });
});
