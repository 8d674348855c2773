import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanSummary } from '../../functions/core/findings/findings-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { argoScenario, conflictingState } from '../helpers/argo-scenario.js';
import { type FakeArgoCd, startFakeArgoCd } from '../helpers/fake-argocd.js';
import { type FakeKubernetes, startFakeKubernetes, writeKubeconfig } from '../helpers/fake-kubernetes.js';
import {
  allFileText,
  canary,
  REGION,
  REPO_ROOT,
  runCli,
  STATE_BUCKET,
  TEST_REGISTRY_OWNERS,
  useMoto,
  useTempDir,
} from '../helpers/integration.js';

/**
 * The ScanCluster stage as deployed: the scan-cluster handler with the Argo CD token in Secrets
 * Manager and Terraform state in S3 (moto), and `driftwatch scan` running the stage for an EKS
 * cluster whose API checks the presigned token.
 */
const aws = useMoto();
const temp = useTempDir('driftwatch-scan-cluster-');
const salt = { DRIFTWATCH_HASH_SALT: 'scan-cluster-salt-000001' };
const token = canary('sm-token');
const stateSecret = canary('state-secret');

const HEADER = [
  ...TEST_REGISTRY_OWNERS,
  'workspaces:',
  '  - id: platform-k8s',
  '    owner: platform',
  '    environment: prod',
  '    source: { dir: infra }',
  `    backend: { bucket: ${STATE_BUCKET}, key: platform-k8s/terraform.tfstate, region: ${REGION} }`,
];

describe('scan-cluster handler', () => {
  let argo: FakeArgoCd;
  beforeAll(async () => {
    argo = await startFakeArgoCd({
      token,
      applications: argoScenario({ lastApplied: canary('la'), envSecret: canary('env') }),
    });
    await new SecretsManagerClient({}).send(
      new CreateSecretCommand({ Name: 'driftwatch/argocd-prod', SecretString: JSON.stringify({ token }) }),
    );
    await aws.s3.send(
      new PutObjectCommand({
        Bucket: STATE_BUCKET,
        Key: 'platform-k8s/terraform.tfstate',
        Body: JSON.stringify(conflictingState(stateSecret)),
      }),
    );
  });
  afterAll(async () => {
    await argo?.close();
  });

  it('reads the token from Secrets Manager and the state from S3, and records the findings', async () => {
    const registry = join(temp.path, 'handler.yaml');
    writeFileSync(
      registry,
      [
        ...HEADER,
        'clusters:',
        '  - id: prod-eu',
        '    owner: platform',
        '    environment: prod',
        `    argocd: { url: "${argo.url}", token: { secretsManager: driftwatch/argocd-prod } }`,
        '    applications: [{ name: payments-api, owner: payments }]',
        '    workspaces: [platform-k8s]',
        '',
      ].join('\n'),
    );
    const event = {
      ...JSON.parse(readFileSync(join(REPO_ROOT, 'events/scan-cluster.json'), 'utf8')),
      registry,
      cluster: 'prod-eu',
    };
    const eventFile = join(temp.path, 'event.json');
    writeFileSync(eventFile, JSON.stringify(event));
    const store = join(temp.path, 'handler-store');
    const run = await runCli(['invoke', 'scan-cluster', '--event', eventFile], {
      env: { ...salt, DRIFTWATCH_STORE: store },
    });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      scanId: event.scanId,
      cluster: 'prod-eu',
      status: 'failed',
      findingsKey: `scans/dt=2026-11-29/scan=${event.scanId}/prod-eu@cluster.jsonl`,
    });
    const history = readFileSync(join(store, result.findingsKey), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Finding);
    const conflicts = history.filter((finding) => finding.kind === 'ownership-conflict');
    expect(conflicts.map((finding) => (finding.resource as { name: string }).name).sort()).toEqual([
      'httpbin-svc',
      'payments-db',
    ]);
    expect(
      conflicts.find((finding) => (finding.resource as { name: string }).name === 'payments-db'),
    ).toMatchObject({
      owner: 'payments',
      evidence: { owners: ['platform', 'payments'] },
    });
    expect(history.every((finding) => finding.check === 'cluster' && finding.workspace === 'prod-eu')).toBe(
      true,
    );
    const logs = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(logs).toContainEqual(expect.objectContaining({ message: 'cluster scanned', cluster: 'prod-eu' }));
    const everything = run.stdout + run.stderr + allFileText(store);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(stateSecret);
  });
});

describe('driftwatch scan runs the ScanCluster stage', () => {
  let kube: FakeKubernetes;
  const seen: string[] = [];
  beforeAll(async () => {
    kube = await startFakeKubernetes({
      objects: [],
      authorize: (header) => {
        if (!header?.startsWith('Bearer k8s-aws-v1.')) return false;
        const url = new URL(
          Buffer.from(header.slice('Bearer k8s-aws-v1.'.length), 'base64url').toString('utf8'),
        );
        seen.push(url.toString());
        return (
          url.hostname === 'sts.eu-west-1.amazonaws.com' &&
          url.searchParams.get('Action') === 'GetCallerIdentity' &&
          url.searchParams.get('X-Amz-SignedHeaders') === 'host;x-k8s-aws-id'
        );
      },
    });
  });
  afterAll(async () => {
    await kube?.close();
  });

  it('scans an EKS cluster with a presigned token and counts it in the summary', async () => {
    // Overlays are relative to the registry and stay inside its directory: copy the example next to it.
    cpSync(join(REPO_ROOT, 'examples/gitops'), join(temp.path, 'gitops'), { recursive: true });
    const registry = join(temp.path, 'scan.yaml');
    writeFileSync(
      registry,
      [
        ...HEADER,
        'clusters:',
        '  - id: shop-eks',
        '    owner: platform',
        '    environment: staging',
        '    kubernetes:',
        `      eks: { cluster: shop, region: ${REGION}, server: "${kube.server}" }`,
        '      manifests: { kustomize: gitops/overlays/prod }',
        '',
      ].join('\n'),
    );
    const store = join(temp.path, 'scan-store');
    const run = await runCli(
      ['scan', '--registry', registry, '--workspace', 'shop-eks', '--store', store, '--format', 'json'],
      {
        env: salt,
      },
    );
    expect(run.code, run.stderr).toBe(2);
    const findings = JSON.parse(run.stdout) as Finding[];
    // Nothing of the overlay exists in the (empty) cluster: every object is missing, none failed.
    expect(findings.map((finding) => finding.ruleId)).toEqual(Array(4).fill('cluster.missing'));
    expect(findings.every((finding) => finding.severity === 'medium')).toBe(true); // staging: high → medium
    expect(seen.length).toBeGreaterThan(0);
    const summaryKey = run.stderr.match(/scans\/dt=[^ \n]+\//)?.[0];
    const summary = JSON.parse(readFileSync(join(store, `${summaryKey}summary.json`), 'utf8')) as ScanSummary;
    expect(summary.findings.byKind).toEqual({ 'cluster-drift': 4 });
    expect(summary.failures).toEqual([]);
    // Missing objects are never dry-run, and nothing that could change the cluster was sent.
    expect(kube.requests.filter((request) => request.method !== 'GET')).toEqual([]);
    expect(kube.writes).toEqual([]);
  });

  it('runs the sample event: a context missing from the kubeconfig is a failed run, not a crash', async () => {
    const kubeconfig = writeKubeconfig(
      join(temp.path, 'other-kubeconfig'),
      kube.server,
      'x',
      'some-other-context',
    );
    const store = join(temp.path, 'sample-store');
    const run = await runCli(['invoke', 'scan-cluster', '--event', 'events/scan-cluster.json'], {
      env: { ...salt, DRIFTWATCH_STORE: store, KUBECONFIG: kubeconfig },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ cluster: 'shop-local', status: 'failed', findings: 1 });
    const current = JSON.parse(readFileSync(join(store, 'current/shop-local.json'), 'utf8'));
    expect(current.findings[0]).toMatchObject({ ruleId: 'scan.cluster-credentials' });
    expect(current.findings[0].detail).toContain("no context 'kind-shop' in the kubeconfig");
  });
});
