import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Node } from 'constructs';
import { DEFAULT_LINK_HOURS, MAX_LINK_HOURS } from '../functions/adapters/report-links.js';
import type { Registry } from '../functions/core/registry/model.js';
import { parseRegistry } from '../functions/core/registry/parse.js';

/**
 * Deployment settings, read once from CDK context (`-c name=value` or cdk.json) with defaults. The
 * registry itself is parsed here, at synth: a registry with a problem fails `cdk synth` with the same
 * file:line:column messages `driftwatch scan` prints, before anything is deployed.
 */
export interface DriftwatchConfig {
  /** Path of driftwatch.yaml as given (relative to the working directory). */
  registryPath: string;
  registry: Registry;
  scan: ScanSettings;
  alarms: AlarmSettings;
  /** Where the scanners (Lambda and CodeBuild) run when the estate's endpoints are private. */
  vpc?: VpcPlacement;
  /** CloudWatch Logs retention of every log group of the stack, in days. */
  logRetentionDays: number;
  /**
   * Create AWS Chatbot (Amazon Q Developer) Slack channel configurations for `chatbot-slack`
   * destinations. Off by default: the Slack workspace must be authorised in the console once first,
   * or the deployment fails.
   */
  chatbot: boolean;
  /**
   * A provider network mirror (private bucket + CloudFront over HTTPS) that ScanTerraform installs
   * providers from, for accounts without internet egress (`-c providerMirror=true`; docs/providers.md).
   */
  providerMirror: boolean;
  /**
   * How long the digest's link to the owner's report works, at most (`-c reportLinkHours`, default
   * 12): a presigned URL is a bearer token for that report (docs/report.md#the-link-in-the-digest).
   */
  reportLinkHours: number;
}

export interface ScanSettings {
  /**
   * Workspaces scanned at once, at most: ScanTerraform maps over accounts, terraformConcurrency /
   * accountConcurrency accounts at a time, each with at most accountConcurrency scans.
   */
  terraformConcurrency: number;
  /** Workspaces of one AWS account scanned at once, so one account's throttling stays its own. */
  accountConcurrency: number;
  /** State buckets checked at once (CheckBackend, ObserveLocks, ConfirmLocks). */
  backendConcurrency: number;
  /** Clusters scanned at once (ScanCluster). */
  clusterConcurrency: number;
  /**
   * Items of a Map that may fail (after their Catch also failed) before the Map fails. Every item has
   * a Catch that records a scan-failed finding, so this only counts failures to record one; a failed
   * Map is caught too, and RecordFindings records what it left (docs/operations.md).
   */
  toleratedFailurePercentage: number;
  /** The whole scan; the ExecutionsTimedOut alarm fires after it. */
  timeoutHours: number;
}

export interface AlarmSettings {
  /** Alarm when more than this share of the workspaces failed in one scan. */
  failedWorkspacesPercent: number;
  /** Alarm when no scan succeeded (workspaces scanned, failures within the share above) for this long. */
  successfulScanWithinHours: number;
  /** An extra subscriber of the alarm topic (besides the fallback owner's destinations). */
  email?: string;
}

export interface VpcPlacement {
  vpcId: string;
  subnetIds: string[];
  securityGroupIds: string[];
}

export const DEFAULT_REGISTRY_PATH = 'examples/estate/driftwatch.yaml';
export const DEFAULT_SCHEDULE = { cron: '0 2 * * ? *', timezone: 'UTC' } as const;
/** Retention values CloudWatch Logs accepts (RetentionDays), so a typo fails synth rather than deploy. */
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function readConfig(node: Node): DriftwatchConfig {
  const registryPath = stringContext(node, 'registry') ?? DEFAULT_REGISTRY_PATH;
  return {
    registryPath,
    registry: loadRegistry(registryPath),
    scan: {
      terraformConcurrency: intContext(node, 'scanConcurrency', 20, 1, 10_000),
      backendConcurrency: intContext(node, 'backendConcurrency', 10, 1, 10_000),
      clusterConcurrency: intContext(node, 'clusterConcurrency', 5, 1, 10_000),
      toleratedFailurePercentage: intContext(node, 'toleratedFailurePercentage', 10, 0, 100),
      timeoutHours: intContext(node, 'scanTimeoutHours', 8, 1, 23),
      accountConcurrency: intContext(node, 'accountConcurrency', 5, 1, 1_000),
    },
    alarms: {
      failedWorkspacesPercent: intContext(node, 'failedWorkspacesAlarmPercent', 20, 0, 99),
      // CloudWatch evaluates at most 7 days.
      successfulScanWithinHours: intContext(node, 'successfulScanWithinHours', 26, 1, 168),
      ...optional('email', stringContext(node, 'alarmEmail')),
    },
    ...optional('vpc', vpcPlacement(node)),
    logRetentionDays: logRetention(node),
    reportLinkHours: intContext(node, 'reportLinkHours', DEFAULT_LINK_HOURS, 1, MAX_LINK_HOURS),
    chatbot: boolContext(node, 'chatbot', false),
    providerMirror: boolContext(node, 'providerMirror', false),
  };
}

/** Reads and validates the registry; a RegistryError's message already lists every problem. */
export function loadRegistry(path: string): Registry {
  let text: string;
  try {
    text = readFileSync(resolve(path), 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the registry ${path} (-c registry=…): ${(error as Error).message}`);
  }
  return parseRegistry(text, { fileName: path });
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** `-c vpcId=vpc-… -c vpcSubnetIds=subnet-a,subnet-b -c vpcSecurityGroupIds=sg-…`: all three or none. */
function vpcPlacement(node: Node): VpcPlacement | undefined {
  const list = (name: string) =>
    stringContext(node, name)
      ?.split(',')
      .map((part) => part.trim())
      .filter(Boolean);
  const vpcId = stringContext(node, 'vpcId');
  const subnetIds = list('vpcSubnetIds');
  const securityGroupIds = list('vpcSecurityGroupIds');
  const given = [vpcId, subnetIds, securityGroupIds].filter((value) => value !== undefined).length;
  if (given === 0) return undefined;
  if (!vpcId || !subnetIds?.length || !securityGroupIds?.length)
    throw new ConfigError(
      'VPC placement needs all of -c vpcId=vpc-… -c vpcSubnetIds=subnet-a,subnet-b -c vpcSecurityGroupIds=sg-…',
    );
  const bad = [
    ...(/^vpc-([0-9a-f]{8}|[0-9a-f]{17})$/.test(vpcId) ? [] : [`vpcId ${vpcId}`]),
    ...subnetIds.filter((id) => !/^subnet-([0-9a-f]{8}|[0-9a-f]{17})$/.test(id)).map((id) => `subnet ${id}`),
    ...securityGroupIds
      .filter((id) => !/^sg-([0-9a-f]{8}|[0-9a-f]{17})$/.test(id))
      .map((id) => `security group ${id}`),
  ];
  if (bad.length > 0) throw new ConfigError(`not an AWS id: ${bad.join(', ')} (vpc-…, subnet-…, sg-…)`);
  return { vpcId, subnetIds, securityGroupIds };
}

function stringContext(node: Node, name: string): string | undefined {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ConfigError(`context ${name} must be a string`);
  return value;
}

/** Context from `-c name=5` arrives as a string, from cdk.json as a number: accept both. */
function intContext(node: Node, name: string, fallback: number, min: number, max: number): number {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined || value === null || value === '') return fallback;
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new ConfigError(`context ${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  return number;
}

function boolContext(node: Node, name: string, fallback: boolean): boolean {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined || value === null || value === '') return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ConfigError(`context ${name} must be true or false, got ${String(value)}`);
}

function logRetention(node: Node): number {
  const days = intContext(node, 'logRetentionDays', 90, 1, 3653);
  if (!LOG_RETENTION_DAYS.includes(days))
    throw new ConfigError(`context logRetentionDays must be one of ${LOG_RETENTION_DAYS.join(', ')}`);
  return days;
}
