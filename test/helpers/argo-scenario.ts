import { type FakeApplication, predictFromLive, readArgoFixture, resourceDiff } from './fake-argocd.js';

/**
 * The Argo CD estate the cluster tests scan: objects in test/fixtures/argo-cd shaped like Argo CD's
 * own test data (a Synced/Healthy application, a Degraded Argo CD 3.x app-of-apps child, the gitops-engine Service trio) plus cases
 * of our own (a masked Secret, a missing and an orphaned object, failures).
 */
export function argoScenario(canaries: { lastApplied: string; envSecret: string }): FakeApplication[] {
  const healthy = readArgoFixture('synced-healthy-application.yaml');
  // An Argo CD 3.x application as its API returns it (resource health filled in from the tree).
  const degraded = readArgoFixture('degraded-application-3x.yaml');

  const serviceConfig = readArgoFixture('service-config.yaml');
  const serviceLive = readArgoFixture('service-live.yaml');
  const servicePredicted = readArgoFixture('service-predicted-live.yaml');
  const httpbin = application('httpbin', 'default', {
    sync: { status: 'OutOfSync' },
    health: { status: 'Healthy' },
    resources: [
      { version: 'v1', kind: 'Service', namespace: 'httpbin', name: 'httpbin-svc', status: 'OutOfSync' },
    ],
  });

  const secret = (value: string, lastApplied?: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'payments-db',
      namespace: 'payments',
      ...(lastApplied
        ? { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } }
        : {}),
    },
    type: 'Opaque',
    data: { password: value },
  });
  const deployment = (image: string, password: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'payments-api',
      namespace: 'payments',
      labels: { 'app.kubernetes.io/instance': 'payments-api' },
    },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [
            {
              name: 'api',
              image,
              env: [
                { name: 'LOG_LEVEL', value: 'info' },
                { name: 'DB_PASSWORD', value: password },
              ],
            },
          ],
        },
      },
    },
  });
  const orphan = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'payments-legacy', namespace: 'payments' },
    data: { MODE: 'legacy' },
  };
  const payments = application('payments-api', 'payments', {
    sync: { status: 'OutOfSync' },
    health: { status: 'Healthy' },
    resources: [
      {
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        namespace: 'payments',
        name: 'payments-api',
        status: 'OutOfSync',
      },
      { version: 'v1', kind: 'Secret', namespace: 'payments', name: 'payments-db', status: 'OutOfSync' },
      {
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        namespace: 'payments',
        name: 'payments-worker',
        status: 'OutOfSync',
      },
      {
        version: 'v1',
        kind: 'ConfigMap',
        namespace: 'payments',
        name: 'payments-legacy',
        status: 'OutOfSync',
        requiresPruning: true,
      },
    ],
  });
  const apiTarget = deployment('registry.example.com/payments-api:1.4.2', canaries.envSecret);
  const apiLive = deployment(
    'registry.example.com/payments-api:1.4.2-hotfix',
    `${canaries.envSecret}-rotated`,
  );
  const secretLive = secret('+++++++++', canaries.lastApplied);
  const worker = {
    ...deployment('registry.example.com/payments-worker:2.0.0', 'x'),
    metadata: { name: 'payments-worker', namespace: 'payments' },
  };

  return [
    { application: healthy },
    { application: degraded },
    {
      application: httpbin,
      managedResources: [
        // gitops-engine's server-side diff trio: the predicted state is the dry-run result.
        resourceDiff({
          kind: 'Service',
          namespace: 'httpbin',
          name: 'httpbin-svc',
          target: serviceConfig,
          live: serviceLive,
          predicted: servicePredicted,
        }),
      ],
    },
    {
      application: payments,
      managedResources: [
        resourceDiff({
          group: 'apps',
          kind: 'Deployment',
          namespace: 'payments',
          name: 'payments-api',
          target: apiTarget,
          live: apiLive,
          predicted: predictFromLive(apiLive, apiTarget),
        }),
        // Argo CD masks Secret values (gitops-engine HideSecretData): same value, same mask length;
        // different values, different lengths.
        resourceDiff({
          kind: 'Secret',
          namespace: 'payments',
          name: 'payments-db',
          target: secret('++++++++'),
          live: secretLive,
          predicted: predictFromLive(secretLive, secret('++++++++')),
        }),
        // Not live: Argo CD's predicted state is git's object (handleResourceCreateOrDeleteDiff).
        resourceDiff({
          group: 'apps',
          kind: 'Deployment',
          namespace: 'payments',
          name: 'payments-worker',
          target: worker,
          predicted: worker,
        }),
        resourceDiff({ kind: 'ConfigMap', namespace: 'payments', name: 'payments-legacy', live: orphan }),
      ],
    },
    {
      application: application('gone', 'default', {
        sync: { status: 'Synced' },
        health: { status: 'Healthy' },
      }),
      vanishes: true,
    },
    { application: application('garbled', 'default', { sync: { status: 'Synced' } }), malformed: true },
    {
      application: application('uncomparable', 'default', {
        sync: { status: 'Unknown' },
        health: { status: 'Healthy' },
        conditions: [
          {
            type: 'ComparisonError',
            message: 'rpc error: code = Unknown desc = Manifest generation error: kustomize build failed',
          },
        ],
      }),
    },
  ];
}

function application(
  name: string,
  namespace: string,
  status: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd' },
    spec: {
      project: 'default',
      destination: { server: 'https://kubernetes.default.svc', namespace },
      source: {
        repoURL: 'https://git.example.com/platform/deploy.git',
        path: `apps/${name}`,
        targetRevision: 'main',
      },
      syncPolicy: { syncOptions: ['CreateNamespace=true'] },
    },
    status,
  };
}

/** A Terraform state (format v4) that manages objects Argo CD manages too, and some it does not. */
export function conflictingState(secretCanary: string): Record<string, unknown> {
  return {
    version: 4,
    terraform_version: '1.11.4',
    serial: 7,
    lineage: '5b0e8d0a-6a2e-4c1b-9f0e-3c2f7f6f0a11',
    outputs: {},
    resources: [
      {
        mode: 'managed',
        type: 'kubernetes_service_v1',
        name: 'httpbin',
        provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
        instances: [
          {
            schema_version: 1,
            attributes: {
              id: 'httpbin/httpbin-svc',
              metadata: [{ name: 'httpbin-svc', namespace: 'httpbin', labels: {}, annotations: {} }],
              spec: [{ type: 'ClusterIP', port: [{ name: 'web', port: 8080, target_port: '8000' }] }],
            },
          },
        ],
      },
      {
        mode: 'managed',
        type: 'kubernetes_secret_v1',
        name: 'payments_db',
        provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
        instances: [
          {
            schema_version: 0,
            attributes: {
              id: 'payments/payments-db',
              metadata: [{ name: 'payments-db', namespace: 'payments' }],
              data: { password: secretCanary },
            },
            sensitive_attributes: [[{ type: 'get_attr', value: 'data' }]],
          },
        ],
      },
      {
        mode: 'managed',
        type: 'kubernetes_namespace_v1',
        name: 'monitoring',
        provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
        instances: [
          { schema_version: 0, attributes: { id: 'monitoring', metadata: [{ name: 'monitoring' }] } },
        ],
      },
      {
        mode: 'managed',
        type: 'aws_s3_bucket',
        name: 'logs',
        provider: 'provider["registry.terraform.io/hashicorp/aws"]',
        instances: [{ schema_version: 0, attributes: { bucket: 'logs', id: 'logs' } }],
      },
    ],
    check_results: null,
  };
}
