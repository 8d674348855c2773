import { Aws, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { FINDINGS_PREFIXES } from './findings-storage.js';

export interface FindingsAnalyticsProps {
  bucket: s3.IBucket;
  key: kms.IKey;
  /** Partition projection starts here: scans before it are not queried. */
  firstScanDate?: string;
}

export const FINDINGS_TABLE = 'findings';
/** Athena stops a query after this much data: a runaway query costs at most ~$0.05. */
const BYTES_SCANNED_CUTOFF = 10 * 1024 ** 3;

/** Only finding lines: summary.json (pretty-printed JSON in the same folders) reads as empty rows. */
const FINDING_ROWS = 'id IS NOT NULL';
/**
 * When a history line was written: a resolved line at its resolvedAt, any other at its lastSeenAt
 * (both the recording scan's time). Scan ids do not sort by time: a rescan's (`rescan-…`) sorts
 * after the nightly scans' (`20261129T…`) of the same day whether it ran before or after them.
 */
const LINE_TIME = `CASE WHEN status = 'resolved' THEN resolvedat ELSE lastseenat END`;
/** The latest line of every finding in the window: its status now. */
const LATEST_PER_FINDING = `latest AS (
  SELECT *, row_number() OVER (PARTITION BY id ORDER BY ${LINE_TIME} DESC, dt DESC, scanid DESC) AS rn
  FROM ${FINDINGS_TABLE}
  WHERE ${FINDING_ROWS} AND dt >= date_format(current_date - interval '90' day, '%Y-%m-%d')
)`;

/** The named queries, by name: what a platform team asks of its history. */
export const NAMED_QUERIES: Record<string, { description: string; sql: string }> = {
  'open-findings-by-owner': {
    description: 'Open findings (latest status not resolved or suppressed) per owner and severity',
    sql: `WITH ${LATEST_PER_FINDING}
SELECT owner, severity, count(*) AS open_findings
FROM latest
WHERE rn = 1 AND status NOT IN ('resolved', 'suppressed')
GROUP BY owner, severity
ORDER BY owner, CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END;`,
  },
  'drift-age-distribution': {
    description: 'How long open drift has been open (days since first seen), in buckets',
    sql: `WITH ${LATEST_PER_FINDING},
aged AS (
  SELECT date_diff('day', from_iso8601_timestamp(firstseenat), current_timestamp) AS age_days
  FROM latest
  WHERE rn = 1 AND status NOT IN ('resolved', 'suppressed') AND kind IN ('terraform-drift', 'cluster-drift')
)
SELECT CASE
    WHEN age_days < 1 THEN '0: under a day'
    WHEN age_days < 7 THEN '1: 1-6 days'
    WHEN age_days < 30 THEN '2: 7-29 days'
    WHEN age_days < 90 THEN '3: 30-89 days'
    ELSE '4: 90 days or more'
  END AS age, count(*) AS open_drift
FROM aged
GROUP BY 1
ORDER BY 1;`,
  },
  // Nights are partition days: a re-run or manual scan the same day (another scan id) is no second night.
  'top-drifting-resources': {
    description: 'Resources that drifted on the most nights in the last 90 days',
    sql: `SELECT workspace, coalesce(resource.address, resource.kind || '/' || resource.name) AS resource,
  count(DISTINCT dt) AS nights_drifted, max(dt) AS last_drifted
FROM ${FINDINGS_TABLE}
WHERE ${FINDING_ROWS}
  AND kind IN ('terraform-drift', 'cluster-drift')
  AND status <> 'resolved'
  AND dt >= date_format(current_date - interval '90' day, '%Y-%m-%d')
GROUP BY 1, 2
ORDER BY nights_drifted DESC
LIMIT 25;`,
  },
  'mean-time-to-resolve': {
    description: 'Mean and median hours from first seen to resolved, per owner and kind (last 90 days)',
    sql: `SELECT owner, kind, count(*) AS resolved,
  round(avg(date_diff('minute', from_iso8601_timestamp(firstseenat), from_iso8601_timestamp(resolvedat))) / 60.0, 1) AS mean_hours,
  round(approx_percentile(date_diff('minute', from_iso8601_timestamp(firstseenat), from_iso8601_timestamp(resolvedat)), 0.5) / 60.0, 1) AS median_hours
FROM ${FINDINGS_TABLE}
WHERE ${FINDING_ROWS}
  AND status = 'resolved' AND resolvedat IS NOT NULL
  AND dt >= date_format(current_date - interval '90' day, '%Y-%m-%d')
GROUP BY owner, kind
ORDER BY mean_hours DESC;`,
  },
};

/**
 * Athena over the scan history: a Glue table on `scans/` (one JSON finding per line, partition
 * projection on `dt` so no crawler or MSCK REPAIR is ever needed), a workgroup whose results are
 * encrypted with the findings key, and the named queries above.
 */
export class FindingsAnalytics extends Construct {
  readonly database: glue.CfnDatabase;
  readonly table: glue.CfnTable;
  readonly workgroup: athena.CfnWorkGroup;
  readonly databaseName: string;

  constructor(scope: Construct, id: string, props: FindingsAnalyticsProps) {
    super(scope, id);
    // Glue names: lowercase letters, digits and underscores.
    this.databaseName = `${Stack.of(this)
      .stackName.toLowerCase()
      .replace(/[^a-z0-9_]/g, '_')}_findings`;
    this.database = new glue.CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: this.databaseName, description: 'driftwatch findings history' },
    });
    const location = `s3://${props.bucket.bucketName}/${FINDINGS_PREFIXES.scans}`;
    this.table = new glue.CfnTable(this, 'Table', {
      catalogId: Aws.ACCOUNT_ID,
      databaseName: this.databaseName,
      tableInput: {
        name: FINDINGS_TABLE,
        description: 'Every finding seen in each scan, and those it resolved (scans/dt=…/scan=…/*.jsonl)',
        tableType: 'EXTERNAL_TABLE',
        partitionKeys: [{ name: 'dt', type: 'string' }],
        parameters: {
          classification: 'json',
          'projection.enabled': 'true',
          'projection.dt.type': 'date',
          'projection.dt.format': 'yyyy-MM-dd',
          'projection.dt.range': `${props.firstScanDate ?? '2025-01-01'},NOW`,
          'projection.dt.interval': '1',
          'projection.dt.interval.unit': 'DAYS',
          'storage.location.template': `${location}dt=\${dt}/`,
        },
        storageDescriptor: {
          location,
          inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
          serdeInfo: {
            serializationLibrary: 'org.openx.data.jsonserde.JsonSerDe',
            parameters: {
              // summary.json is pretty-printed: its lines are not JSON objects and must not fail a query.
              'ignore.malformed.json': 'true',
              'case.insensitive': 'true',
              'dots.in.keys': 'false',
            },
          },
          columns: FINDING_COLUMNS,
        },
      },
    });
    this.table.addResourceDependency(this.database);

    this.workgroup = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: `${Stack.of(this).stackName}-findings`,
      description: 'driftwatch findings queries',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: BYTES_SCANNED_CUTOFF,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: `s3://${props.bucket.bucketName}/${FINDINGS_PREFIXES.athenaResults}`,
          encryptionConfiguration: { encryptionOption: 'SSE_KMS', kmsKey: props.key.keyArn },
        },
      },
    });

    for (const [name, query] of Object.entries(NAMED_QUERIES)) {
      const named = new athena.CfnNamedQuery(this, name, {
        name: `driftwatch-${name}`,
        description: query.description,
        database: this.databaseName,
        workGroup: this.workgroup.name,
        queryString: query.sql,
      });
      named.addResourceDependency(this.workgroup);
      named.addResourceDependency(this.table);
    }
  }
}

/** The Finding contract (DESIGN.md) as Hive columns; free-form `evidence` is left out. */
export const FINDING_COLUMNS: glue.CfnTable.ColumnProperty[] = [
  { name: 'id', type: 'string' },
  { name: 'kind', type: 'string' },
  { name: 'ruleid', type: 'string' },
  { name: 'severity', type: 'string' },
  { name: 'status', type: 'string' },
  { name: 'workspace', type: 'string' },
  { name: 'owner', type: 'string' },
  { name: 'environment', type: 'string' },
  { name: 'check', type: 'string' },
  {
    name: 'resource',
    type: 'struct<address:string,type:string,provider:string,module:string,movedfrom:string,bucket:string,key:string,locktable:string,lockid:string,app:string,group:string,kind:string,namespace:string,name:string>',
  },
  {
    name: 'drift',
    // before/after are any JSON value; as strings they keep their JSON text.
    type: 'struct<action:string,changes:array<struct<path:string,before:string,after:string,sensitive:boolean>>>',
  },
  { name: 'title', type: 'string' },
  { name: 'detail', type: 'string' },
  { name: 'remediation', type: 'struct<summary:string,steps:array<string>>' },
  { name: 'scanid', type: 'string' },
  { name: 'firstseenat', type: 'string' },
  { name: 'lastseenat', type: 'string' },
  { name: 'previousseenat', type: 'string' },
  { name: 'resolvedat', type: 'string' },
  { name: 'valuehash', type: 'string' },
  { name: 'suppression', type: 'struct<reason:string,by:string,until:string,at:string>' },
];
