import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { selfSignedCertificate } from '../../../helpers/provider-mirror.js';
import { expectProblem, HEADER, problemsOf, WORKSPACE, yaml } from './helpers.js';

/** Lines 1-6 HEADER, 7 `workspaces:`, 8-12 WORKSPACE, 13 `clusters:`, the cluster from line 14. */
function withCluster(...rows: string[]): string {
  return yaml(...HEADER, 'workspaces:', ...WORKSPACE, 'clusters:', ...rows);
}

const certificateDir = mkdtempSync(join(tmpdir(), 'driftwatch-registry-ca-'));
afterAll(() => rmSync(certificateDir, { recursive: true, force: true }));

const ARGO = [
  '  - id: prod-eu', // 14
  '    owner: platform', // 15
  '    environment: prod', // 16
  '    argocd: { url: https://argocd.example.com, token: { env: ARGOCD_TOKEN }, project: payments, selector: "team=payments" }', // 17
];

describe('clusters', () => {
  it('reads an Argo CD cluster with application owners, workspaces and policies', () => {
    const registry = parseRegistry(
      withCluster(
        ...ARGO,
        '    applications: [{ name: payments-api, owner: platform }]',
        '    workspaces: [payments-prod]',
        '    policies: { outOfSyncAfter: 2h }',
      ),
    );
    expect(registry.clusters).toStrictEqual([
      {
        id: 'prod-eu',
        owner: 'platform',
        environment: 'prod',
        argocd: {
          url: 'https://argocd.example.com',
          token: { env: 'ARGOCD_TOKEN' },
          project: 'payments',
          selector: 'team=payments',
        },
        applications: [{ name: 'payments-api', owner: 'platform' }],
        workspaces: ['payments-prod'],
        policies: { outOfSyncAfterMs: 2 * 3_600_000 },
      },
    ]);
  });

  it('reads a direct cluster on EKS with manifests in S3, with defaults', () => {
    const registry = parseRegistry(
      withCluster(
        '  - id: shop',
        '    owner: platform',
        '    environment: staging',
        '    kubernetes:',
        '      eks: { cluster: shop, region: eu-west-1, server: "https://ABC.gr7.eu-west-1.eks.amazonaws.com", roleArn: "arn:aws:iam::111111111111:role/driftwatch-eks" }',
        '      manifests: { s3: "s3://ci-artifacts/shop/rendered.yaml" }',
      ),
    );
    expect(registry.clusters[0]).toMatchObject({
      kubernetes: {
        eks: { cluster: 'shop', region: 'eu-west-1' },
        manifests: { s3: 's3://ci-artifacts/shop/rendered.yaml' },
      },
      applications: [],
      workspaces: [],
      policies: { outOfSyncAfterMs: 3_600_000 },
    });
  });

  it('defaults to no clusters', () => {
    expect(parseRegistry(yaml(...HEADER)).clusters).toStrictEqual([]);
  });

  it.each([
    ['an unknown key', [...ARGO, '    zzz: 1'], 'clusters[0].zzz', 18, "unknown key 'zzz'"],
    [
      'both sources',
      [...ARGO, '    kubernetes: { context: x, manifests: { kustomize: k } }'],
      'clusters[0]',
      14,
      "give either 'argocd' or 'kubernetes', not both",
    ],
    ['no source', ARGO.slice(0, 3), 'clusters[0]', 14, "needs 'argocd' or 'kubernetes'"],
    [
      'a token value in the URL',
      [
        ...ARGO.slice(0, 3),
        '    argocd: { url: "https://admin:s3cret@argocd.example.com", token: { env: T } }',
      ],
      'clusters[0].argocd.url',
      17,
      'must not carry credentials',
    ],
    [
      'plain http to a remote server',
      [...ARGO.slice(0, 3), '    argocd: { url: "http://argocd.example.com", token: { env: T } }'],
      'clusters[0].argocd.url',
      17,
      'must use https://',
    ],
    [
      'two token sources',
      [
        ...ARGO.slice(0, 3),
        '    argocd: { url: "https://a.example.com", token: { env: T, secretsManager: s } }',
      ],
      'clusters[0].argocd.token',
      17,
      "give either 'secretsManager' or 'env', not both",
    ],
    [
      'an overlay outside the registry directory',
      [
        '  - id: shop',
        '    owner: platform',
        '    environment: prod',
        '    kubernetes: { context: c, manifests: { kustomize: ../x } }',
      ],
      'clusters[0].kubernetes.manifests.kustomize',
      17,
      "must not contain '..'",
    ],
    [
      'an unknown application owner',
      [...ARGO, '    applications: [{ name: a, owner: paymnts }]'],
      'clusters[0].applications[0].owner',
      18,
      "no team 'paymnts'",
    ],
    [
      'an unknown workspace',
      [...ARGO, '    workspaces: [payments-prd]'],
      'clusters[0].workspaces[0]',
      18,
      "no workspace 'payments-prd' in workspaces; did you mean 'payments-prod'?",
    ],
    [
      'an id a workspace has',
      ['  - id: payments-prod', ...ARGO.slice(1)],
      'clusters[0].id',
      14,
      "duplicate workspace or cluster id 'payments-prod'",
    ],
    [
      'a bad duration',
      [...ARGO, '    policies: { outOfSyncAfter: soon }'],
      'clusters[0].policies.outOfSyncAfter',
      18,
      'is not a duration',
    ],
  ])('rejects %s with its path and line', (_case, rows, path, line, message) => {
    expectProblem(withCluster(...rows), { path, line, message });
  });

  it("takes the CA of an Argo CD server whose certificate a private CA signed, base64 PEM as EKS's", () => {
    const ca = selfSignedCertificate(certificateDir, 'argocd').cert.toString('base64');
    // A PEM block that is not a certificate X.509 can read is refused here, not at the first connection.
    const broken = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString(
      'base64',
    );
    const argo = (value: string) => [
      ...ARGO.slice(0, 3),
      `    argocd: { url: https://argocd.internal, token: { env: T }, certificateAuthority: "${value}" }`,
    ];
    expect(parseRegistry(withCluster(...argo(ca))).clusters[0]!.argocd?.certificateAuthority).toBe(ca);
    expectProblem(withCluster(...argo(broken)), {
      path: 'clusters[0].argocd.certificateAuthority',
      line: 17,
      message: 'not a readable X.509 certificate',
    });
    expectProblem(withCluster(...argo('ca.pem')), {
      path: 'clusters[0].argocd.certificateAuthority',
      line: 17,
      message: "the CA that signed the server's certificate, `base64 -w0 ca.pem`",
    });
    expectProblem(withCluster(...argo('-----BEGIN CERTIFICATE-----MIIB-----END CERTIFICATE-----')), {
      path: 'clusters[0].argocd.certificateAuthority',
      line: 17,
      message: 'this is the PEM itself: give its base64 on one line',
    });
  });

  it('reports every problem of a cluster at once', () => {
    const problems = problemsOf(withCluster('  - id: Prod', '    owner: nobody', '    environment: prod'));
    expect(problems.map((problem) => problem.path)).toEqual([
      'clusters[0]',
      'clusters[0].id',
      'clusters[0].owner',
    ]);
  });
});
