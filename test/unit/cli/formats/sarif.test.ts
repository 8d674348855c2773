import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryUri, sarifLevel, sarifLog } from '../../../../cli/formats/sarif.js';
import { exitCodeFor, registrySourceRoots, renderFindings, sourceRootUri } from '../../../../cli/output.js';
import { FINDING_KINDS, type Finding, SEVERITIES } from '../../../../functions/core/findings/model.js';
import { driftDraft, scanFailedDraft, storedFinding } from '../../../helpers/findings.js';
import { sarifValidator } from '../../../helpers/sarif-schema.js';

const TOOL = { name: 'driftwatch', version: '0.1.0' };
const validate = sarifValidator();

interface Result {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: { physicalLocation?: { artifactLocation: { uri: string } }; logicalLocations: unknown[] }[];
  partialFingerprints: Record<string, string>;
  properties: Record<string, string>;
  suppressions?: unknown[];
}
interface Log {
  version: string;
  runs: {
    tool: {
      driver: {
        name: string;
        version: string;
        rules: { id: string; defaultConfiguration: { level: string } }[];
      };
    };
    results: Result[];
  }[];
}

/** One finding of every kind and severity, with a suppressed and a resolved one: all the shapes a log holds. */
function everyShape(): Finding[] {
  const findings = FINDING_KINDS.map((kind, index) =>
    storedFinding(
      {},
      driftDraft({ kind, ruleId: `${kind}.rule`, severity: SEVERITIES[index % SEVERITIES.length]! }),
    ),
  );
  findings.push(
    storedFinding({}, driftDraft({ resource: { bucket: 'tfstate', key: 'a/terraform.tfstate' } })),
    storedFinding(
      {},
      driftDraft({ resource: { group: 'apps', kind: 'Deployment', namespace: 'web', name: 'api' } }),
    ),
    storedFinding(
      {
        status: 'suppressed',
        suppression: {
          reason: 'migration',
          by: 'ana',
          until: '2027-01-01T00:00:00Z',
          at: '2026-11-01T00:00:00Z',
        },
      },
      driftDraft({ resource: undefined, environment: undefined, owner: undefined }),
    ),
    storedFinding({ status: 'resolved', resolvedAt: '2026-11-30T00:00:00Z' }, scanFailedDraft()),
  );
  return findings;
}

describe('sarif format', () => {
  it('is a valid SARIF 2.1.0 log (OASIS schema), with and without source roots', () => {
    const findings = everyShape();
    for (const sourceRootOf of [undefined, () => 'infra/payments/']) {
      const log = sarifLog(findings, { tool: TOOL, sourceRootOf });
      const valid = validate(log);
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    }
    // The validator is not vacuous: a result without a message is rejected.
    const broken = sarifLog(findings, { tool: TOOL }) as unknown as Log;
    delete (broken.runs[0]!.results[0] as Partial<Result>).message;
    expect(validate(broken)).toBe(false);
  });

  it('maps severities to levels: critical/high error, medium warning, low/info note', () => {
    expect(SEVERITIES.map(sarifLevel)).toEqual(['error', 'error', 'warning', 'note', 'note']);
  });

  it('has one rule per ruleId used, at the highest level seen, referenced by index', () => {
    const findings = [
      storedFinding({}, driftDraft({ severity: 'low' })),
      storedFinding({}, driftDraft({ severity: 'critical', workspace: 'core' })),
      storedFinding({}, scanFailedDraft()),
    ];
    const log = sarifLog(findings, { tool: TOOL }) as unknown as Log;
    const run = log.runs[0]!;
    expect(run.tool.driver.rules.map((rule) => rule.id)).toEqual(['drift.update', 'scan.plan-errored']);
    expect(run.tool.driver.rules[0]!.defaultConfiguration.level).toBe('error');
    expect(run.results.map((result) => [result.ruleId, result.ruleIndex, result.level])).toEqual([
      ['drift.update', 0, 'note'],
      ['drift.update', 0, 'error'],
      ['scan.plan-errored', 1, 'error'],
    ]);
  });

  it('carries the finding id as fingerprint, the description as message and the finding facts as properties', () => {
    const finding = storedFinding({}, driftDraft());
    const text = renderFindings([finding], 'sarif', new Date(), { colour: false, width: 80 });
    const log = JSON.parse(text) as Log;
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]!.tool.driver).toMatchObject({
      name: 'driftwatch',
      version: expect.stringMatching(/^\d+\./),
    });
    const [result] = log.runs[0]!.results;
    expect(result!.partialFingerprints).toEqual({ 'driftwatchFindingId/v1': finding.id });
    expect(result!.message.text).toBe(`${finding.title}\n\n${finding.detail}`);
    expect(result!.properties).toMatchObject({
      severity: 'medium',
      workspace: 'payments-prod',
      environment: 'prod',
      owner: 'payments',
    });
    expect(result!.locations).toEqual([
      { logicalLocations: [{ fullyQualifiedName: 'aws_s3_bucket.ledger', kind: 'resource' }] },
    ]);
  });

  it('lists results in the table order (most severe first), whatever the input order', () => {
    const a = storedFinding({}, driftDraft({ severity: 'low', workspace: 'a' }));
    const b = storedFinding({}, driftDraft({ severity: 'high', workspace: 'b' }));
    const c = storedFinding({}, driftDraft({ severity: 'high', workspace: 'a' }));
    const ids = (findings: Finding[]) =>
      (JSON.parse(renderFindings(findings, 'sarif')) as Log).runs[0]!.results.map(
        (result) => result.partialFingerprints['driftwatchFindingId/v1'],
      );
    expect(ids([a, b, c])).toEqual([c.id, b.id, a.id]);
    expect(ids([c, a, b])).toEqual(ids([a, b, c]));
  });

  it('escapes what a terminal would execute, as the JSON output does', () => {
    const finding = storedFinding({}, driftDraft({ title: 'x\u009b31m\u202e' }));
    const text = renderFindings([finding], 'sarif');
    expect(text).not.toMatch(/[\u009b\u202e]/);
    expect((JSON.parse(text) as Log).runs[0]!.results[0]!.message.text.startsWith('x\u009b31m\u202e')).toBe(
      true,
    );
  });

  it('points at the source root when known: --config, or the registry source dirs, relative to the current directory', () => {
    expect(directoryUri('infra/payments')).toBe('infra/payments/');
    expect(directoryUri('.')).toBe('./');
    expect(directoryUri('../elsewhere')).toBeUndefined();
    expect(directoryUri('infra/a b')).toBe('infra/a%20b/');
    expect(sourceRootUri('/repo/infra/payments', '/repo')).toBe('infra/payments/');
    const roots = registrySourceRoots({
      dir: process.cwd(),
      registry: {
        workspaces: [
          { id: 'payments-prod', source: { dir: 'infra', path: 'payments' } },
          { id: 'bundle', source: { s3: 's3://b/k.tgz' } },
          { id: 'absolute', source: { dir: join(process.cwd(), 'infra', 'shared') } },
        ] as never,
      },
    });
    expect(roots('payments-prod')).toBe('infra/payments/');
    // An absolute source.dir is itself, not a path under the registry's directory.
    expect(roots('absolute')).toBe('infra/shared/');
    expect(roots('bundle')).toBeUndefined();
    expect(roots('unknown')).toBeUndefined();
    const log = sarifLog([storedFinding({}, driftDraft())], {
      tool: TOOL,
      sourceRootOf: roots,
    }) as unknown as Log;
    expect(log.runs[0]!.results[0]!.locations[0]!.physicalLocation).toEqual({
      artifactLocation: { uri: 'infra/payments/' },
    });
  });
});

describe('--severity and --fail-on', () => {
  const medium = storedFinding({}, driftDraft({ severity: 'medium', workspace: 'shown-ws' }));
  const info = storedFinding({}, driftDraft({ severity: 'info', workspace: 'hidden-ws' }));
  const failed = storedFinding({}, scanFailedDraft({ severity: 'high' }));

  it('--severity keeps findings at or above the level in every format', () => {
    const style = { colour: false, width: 200 };
    for (const format of ['table', 'json', 'markdown', 'sarif'] as const) {
      const text = renderFindings([medium, info], format, new Date(), style, { severity: 'medium' });
      expect(text, format).toContain('shown-ws');
      expect(text, format).not.toContain('hidden-ws');
    }
  });

  it('exit 2 only when a shown finding is at or above --fail-on; default above info', () => {
    expect(exitCodeFor([medium, info])).toBe(2);
    expect(exitCodeFor([info])).toBe(0);
    expect(exitCodeFor([info], { failOn: 'info' })).toBe(2);
    expect(exitCodeFor([medium], { failOn: 'high' })).toBe(0);
    expect(exitCodeFor([medium], { failOn: 'medium' })).toBe(2);
    // A finding --severity hides does not fail the run.
    expect(exitCodeFor([medium], { severity: 'high' })).toBe(0);
  });

  it('a failed scan exits 1 even when --severity hides its finding', () => {
    expect(exitCodeFor([failed, medium], { severity: 'critical', failOn: 'critical' })).toBe(1);
  });
});
