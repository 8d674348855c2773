import { App, Stack } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { scanHistoryKey } from '../../functions/core/findings/layout.js';
import { recordWorkspaceScan } from '../../functions/core/findings/lifecycle.js';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  FINDING_COLUMNS,
  FindingsAnalytics,
  NAMED_QUERIES,
} from '../../infra/constructs/findings-analytics.js';
import { driftDraft } from '../helpers/findings.js';
import { scratchDir } from '../helpers/scratch-dirs.js';

/** The Glue table's parameters, without synthesizing the whole stack. */
function tableParameters(): Record<string, string> {
  const stack = new Stack(new App({ outdir: scratchDir('driftwatch-cdk-test-') }), 'Driftwatch');
  const analytics = new FindingsAnalytics(stack, 'Analytics', {
    bucket: s3.Bucket.fromBucketName(stack, 'Bucket', 'findings-bucket'),
    key: kms.Key.fromKeyArn(stack, 'Key', 'arn:aws:kms:eu-west-1:111111111111:key/k'),
  });
  const input = analytics.table.tableInput as { parameters: Record<string, string> };
  return input.parameters;
}

/** Every member name of a Hive type `struct<a:string,b:array<struct<c:string>>>`, one level down. */
function structFields(type: string): string[] {
  const inner = type.slice('struct<'.length, -1);
  const fields: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index <= inner.length; index++) {
    const char = inner[index];
    if (char === '<') depth++;
    if (char === '>') depth--;
    if ((char === ',' && depth === 0) || index === inner.length) {
      fields.push(inner.slice(start, index).split(':')[0]!);
      start = index + 1;
    }
  }
  return fields;
}

const column = (name: string) => FINDING_COLUMNS.find((candidate) => candidate.name === name);

describe('the Athena table matches what the store writes', () => {
  it('projects dt onto the keys of scan history: a key written for a day is under that day’s location', () => {
    const parameters = tableParameters();
    expect(parameters['projection.dt.format']).toBe('yyyy-MM-dd');
    for (const startedAt of ['2026-01-01T00:00:00Z', '2026-11-29T23:59:59.999Z', '2028-02-29T12:00:00Z']) {
      const day = startedAt.slice(0, 10); // yyyy-MM-dd of the scan's start, UTC
      const location = parameters['storage.location.template']!.replace(/\$\{dt\}/, day);
      const key = scanHistoryKey(new Date(startedAt), 'scan-1', 'payments-prod', 'backend');
      expect(`s3://findings-bucket/${key}`.startsWith(location)).toBe(true);
    }
  });

  it('has a column for every field of a finding (evidence and ageDays aside), and struct members for every resource shape', () => {
    const { history } = recordWorkspaceScan(undefined, [driftDraft()], {
      workspace: 'payments-prod',
      scanId: 's1',
      now: new Date('2026-11-29T02:00:00Z'),
      outcome: 'ok',
      check: 'terraform',
    });
    const finding: Finding = {
      ...history[0]!,
      resolvedAt: '2026-11-29T02:00:00Z',
      suppression: { reason: 'r', by: 'b', until: 'u', at: 'a' },
    };
    const fields = Object.keys(finding).filter((field) => field !== 'evidence' && field !== 'ageDays');
    for (const field of fields) expect(column(field.toLowerCase()), field).toBeDefined();
    const resourceFields = structFields(column('resource')!.type!);
    // Every member of the three shapes (Terraform, backend, cluster), lowercased as the SerDe reads them.
    for (const member of [
      'address',
      'type',
      'provider',
      'module',
      'movedFrom',
      'bucket',
      'key',
      'lockTable',
      'lockId',
      'app',
      'group',
      'kind',
      'namespace',
      'name',
    ])
      expect(resourceFields).toContain(member.toLowerCase());
    expect(structFields(column('suppression')!.type!)).toEqual(['reason', 'by', 'until', 'at']);
  });

  it('references only columns and struct members the table has in its named queries', () => {
    for (const [name, query] of Object.entries(NAMED_QUERIES)) {
      for (const [, struct, member] of query.sql.matchAll(/\b([a-z]+)\.([a-z]+)\b/g)) {
        const type = column(struct!)?.type;
        expect(type, `${name}: ${struct}.${member}`).toMatch(/^struct</);
        expect(structFields(type!), `${name}: ${struct}.${member}`).toContain(member);
      }
    }
  });

  it('takes a finding’s latest line by when it was written, not by scan id (a rescan’s id sorts after the night’s)', () => {
    expect('rescan-payments-prod-20261129T010000000Z' > '20261129T020000Z-abcd').toBe(true);
    for (const name of ['open-findings-by-owner', 'drift-age-distribution'])
      expect(NAMED_QUERIES[name]?.sql).toContain(
        "row_number() OVER (PARTITION BY id ORDER BY CASE WHEN status = 'resolved' THEN resolvedat ELSE lastseenat END DESC, dt DESC, scanid DESC)",
      );
  });
});
