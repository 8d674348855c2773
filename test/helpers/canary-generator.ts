import { entry, stateResource } from './plan-builders.js';

/**
 * Plants distinct canary secrets in a `terraform show -json` plan, in Terraform's diagnostics and in
 * Kubernetes objects: one canary per (category, place), so a leak names both. Each canary's `core`
 * is a string that only that planted secret contains; tests assert no core appears in any output.
 *
 * Categories are the ways real plans carry secrets that masks and attribute names miss (issue 10 §1):
 * credentials recognised by value, secret names in maps / `{name, value}` lists / JSON strings,
 * names spelled with other separators and case, values of sensitive variables and outputs that
 * reappear verbatim, and plans without sensitivity masks (format 0.x).
 */

export interface Canary {
  category: string;
  place: string;
  core: string;
}

/** Credentials recognised by their value: each makes a value around a core of letters and digits. */
export const VALUE_CATEGORIES: Readonly<Record<string, (core: string) => string>> = {
  'url-userinfo': (core) => `postgres://app:${core}@db.internal:5432/orders`,
  'url-userinfo-https': (core) => `https://deploy:${core}@git.example.com/infra.git`,
  'authorization-bearer': (core) => `Authorization: Bearer ${core}`,
  'authorization-basic': (core) => `Basic ${core}`,
  'connection-string-password': (core) => `Server=db;Database=app;User Id=app;Password=${core};`,
  'connection-string-pwd': (core) => `host=db user=app pwd=${core} sslmode=require`,
  'hash-rocket': (core) => `class { 'app': db_password => '${core}', port => 5432 }`,
  'xml-element': (core) => `<datasource><user>app</user><password>${core}</password></datasource>`,
  'pem-private-key': (core) => `-----BEGIN PRIVATE KEY-----\nMIIE${core}\n-----END PRIVATE KEY-----`,
  'aws-access-key-id': (core) => `AKIA${pad(core, 16).toUpperCase()}`,
  'aws-secret-access-key': (core) => `key rotated: ${pad(`Ab1/${core}`, 40)}`,
  'github-token': (core) => `ghp_${pad(core, 36)}`,
  'github-fine-grained-token': (core) => `github_pat_${pad(core, 40)}`,
  'gitlab-token': (core) => `glpat-${pad(core, 20)}`,
  'slack-token': (core) => `xoxb-1234567890-${pad(core, 24)}`,
  'slack-webhook': (core) => `https://hooks.slack.com/services/T000/B000/${core}`,
  'stripe-key': (core) => `sk_live_${pad(core, 24)}`,
  jwt: (core) => `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhcHAifQ.${core}`,
  'eks-token': (core) => `k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbS8_${pad(core, 40)}`,
  'terraform-cloud-token': (core) => `${pad(core, 14)}.atlasv1.${pad(core, 67)}`,
  'vault-token': (core) => `hvs.${pad(core, 90)}`,
  'openai-key': (core) => `sk-proj-${pad(core, 20)}T3BlbkFJ${pad(core, 20)}`,
  // A password written raw in a URL: a percent escape, a space and a quote.
  'url-userinfo-raw-characters': (core) => `postgres://app:p%40ss w"${core}@db.internal/orders`,
  // Tools whose password option is a short flag, in a command line and in a list of arguments.
  'mysql-short-password': (core) => `mysqldump -h db.internal -uroot -p${core} orders`,
  'sshpass-password': (core) => `sshpass -p ${core} ssh deploy@bastion`,
  'redis-cli-password': (core) => `redis-cli -h cache.internal -a ${core} ping`,
  'curl-user-password': (core) => `curl -fsS -u deploy:${core} https://artifacts.example.com/x`,
  'command-list-password': (core) => `["mysql","-uroot","-p${core}","orders"]`,
  'single-dash-option': (core) => `keytool -importkeystore -srcstorepass ${core}`,
  'htpasswd-batch': (core) => `htpasswd -bc /etc/nginx/.htpasswd admin ${core}`,
  'piped-password-stdin': (core) =>
    `echo '${core}' | docker login -u ci --password-stdin registry.example.com`,
  'sql-identified-by': (core) => `CREATE USER 'app'@'%' IDENTIFIED BY '${core}';`,
  'sql-with-password': (core) => `ALTER ROLE app WITH LOGIN PASSWORD '${core}';`,
  'oracle-user-password': (core) => `jdbc:oracle:thin:app/${core}@//db.internal:1521/ORCL`,
  'odbc-braced-password': (core) => `Driver={ODBC Driver 18};Server=db;Uid=app;Pwd={a;${core}};`,
  'netrc-password': (core) => `machine git.example.com login deploy password ${core}`,
  'config-line-passphrase': (core) => `[db]\nhost = db.internal\npassword = correct ${core} staple\n`,
  'pgpass-line': (core) => `echo "db.internal:5432:app:deploy:${core}" > /root/.pgpass`,
  'net-user-password': (core) => `net user svc_backup ${core} /add`,
  'config-directive': (core) => `bind 0.0.0.0\nrequirepass ${core}\nport 6379\n`,
  'ssm-put-securestring': (core) =>
    `aws ssm put-parameter --name /app/db --type SecureString --value ${core} --overwrite`,
  // A `{name, value}` pair written as text (a log line, an error, a YAML manifest in a string).
  'named-pair-json-text': (core) => `env=[{"name":"DB_PASSWORD","value":"${core}"}]`,
  'named-pair-yaml-text': (core) => `env:\n  - name: API_TOKEN\n    value: ${core}\n`,
  // A value that starts with our own marker is not redacted already.
  'marker-prefixed': (core) => `password=(redacted)${core}`,
};

/** Names that say "secret" only once separators and case are normalised. */
export const NORMALISED_NAMES: readonly string[] = [
  'x-api-key',
  'private-key',
  'Private.Key',
  'passcode',
  'pwd',
  'dsn',
  'auth',
  'credentials',
  'clientSecret',
  'DB_PASS',
];

let counter = 0;

/** A distinct canary core of capital letters and digits (fits every token format above, AKIA ids too). */
export function newCore(): string {
  counter++;
  const random = Math.random().toString(36).slice(2, 8).toUpperCase();
  return `CNRY${counter.toString(36).toUpperCase().padStart(3, '0')}Q${random}`;
}

function pad(core: string, length: number): string {
  return `${core}x9Y8w7V6u5T4s3R2q1P0o9N8m7L6k5J4i3H2g1F0`.slice(0, Math.max(length, core.length));
}

export interface PlantedPlan {
  plan: Record<string, unknown>;
  /** Terraform's stderr for this plan, echoing canaries the way provider diagnostics do. */
  stderr: string;
  canaries: Canary[];
}

/**
 * A format 1.2 plan with every category in drift, pending changes, outputs, variables, provider
 * configuration, prior state and diagnostics, or a format 0.1 plan (no masks at all) when asked.
 */
export function plantPlan(options: { formatVersion?: string } = {}): PlantedPlan {
  const formatVersion = options.formatVersion ?? '1.2';
  const masks = !formatVersion.startsWith('0.');
  const canaries: Canary[] = [];
  const plant = (category: string, place: string): string => {
    const core = newCore();
    canaries.push({ category, place, core });
    return core;
  };

  const drift: unknown[] = [];
  const changes: unknown[] = [];
  const prior: unknown[] = [];
  const outputs: Record<string, unknown> = {};
  const variables: Record<string, unknown> = {};
  const providerExpressions: Record<string, unknown> = {};
  const diagnostics: string[] = [];

  const resource = (address: string, options: Parameters<typeof entry>[1]) => {
    const made = entry(address, options) as { change: Record<string, unknown> };
    if (!masks) {
      delete made.change.before_sensitive;
      delete made.change.after_sensitive;
    }
    return made;
  };

  // 1. Credentials recognised by value, in attributes whose names say nothing.
  for (const [category, make] of Object.entries(VALUE_CATEGORIES)) {
    const slug = category.replace(/[^a-z0-9]/g, '_');
    const tags = { Team: 'payments', Note: make(plant(category, 'tag')) };
    drift.push(
      resource(`aws_sqs_queue.drift_${slug}`, {
        before: { name: `drift-${slug}`, description: 'plain', tags },
        after: { name: `drift-${slug}`, description: make(plant(category, 'drift')), tags },
      }),
    );
    changes.push(
      resource(`aws_sqs_queue.pending_${slug}`, {
        before: { name: `pending-${slug}`, description: 'plain' },
        after: { name: `pending-${slug}`, description: make(plant(category, 'pending')) },
      }),
    );
    changes.push(
      resource(`aws_ssm_document.created_${slug}`, {
        actions: ['create'],
        after: { name: `created-${slug}`, content: make(plant(category, 'pending-create')) },
      }),
    );
    outputs[`endpoint_${slug}`] = {
      actions: ['update'],
      before: 'plain',
      after: make(plant(category, 'output')),
      after_unknown: false,
      before_sensitive: false,
      after_sensitive: false,
    };
    variables[`setting_${slug}`] = { value: make(plant(category, 'variable')) };
    providerExpressions[`setting_${slug}`] = { constant_value: make(plant(category, 'provider-config')) };
    prior.push(
      stateResource(`aws_sqs_queue.prior_${slug}`, {
        id: make(plant(category, 'prior-state')),
        name: make(plant(category, 'prior-state')),
        description: make(plant(category, 'prior-state')),
      }),
    );
    diagnostics.push(`Error: failed to connect using ${make(plant(category, 'diagnostics'))}`);
  }

  // 2. Secret names in the shapes plans use: a map, a list of {name, value}, a JSON string of such lists.
  for (const name of ['DB_PASSWORD', ...NORMALISED_NAMES]) {
    const slug = name.replace(/[^A-Za-z0-9]/g, '_').toLowerCase();
    const category = NORMALISED_NAMES.includes(name) ? `normalised-name:${name}` : 'secret-name';
    drift.push(
      resource(`aws_lambda_function.map_${slug}`, {
        before: { function_name: `map-${slug}`, environment: [{ variables: { STAGE: 'prod' } }] },
        after: {
          function_name: `map-${slug}`,
          environment: [{ variables: { STAGE: 'prod', [name]: plant(category, 'drift-map') } }],
        },
      }),
    );
    changes.push(
      resource(`aws_codebuild_project.pairs_${slug}`, {
        before: { name: `pairs-${slug}`, environment: [{ environment_variable: [] }] },
        after: {
          name: `pairs-${slug}`,
          environment: [
            {
              environment_variable: [
                { name, value: plant(category, 'pending-pair-list'), type: 'PLAINTEXT' },
              ],
            },
          ],
        },
      }),
    );
    drift.push(
      resource(`aws_ecs_task_definition.json_${slug}`, {
        before: { family: `json-${slug}`, container_definitions: containerDefinitions([]) },
        after: {
          family: `json-${slug}`,
          container_definitions: containerDefinitions([
            { name, value: plant(category, 'drift-json-string') },
          ]),
        },
      }),
    );
    changes.push(
      resource(`aws_batch_job_definition.tags_${slug}`, {
        before: { name: `batch-${slug}`, headers: {} },
        after: { name: `batch-${slug}`, headers: { [name]: plant(category, 'pending-map') } },
      }),
    );
  }

  // A tool in a container's command and its password in its args: each list alone says nothing.
  const splitContainer = (password: string) => ({
    spec: [
      {
        container: [{ name: 'backup', image: 'mysql:8', command: ['mysqldump'], args: ['-uroot', password] }],
      },
    ],
  });
  drift.push(
    resource('kubernetes_cron_job_v1.backup', {
      before: { metadata: [{ name: 'backup' }], job_template: [splitContainer('-pold')] },
      after: {
        metadata: [{ name: 'backup' }],
        job_template: [splitContainer(`-p${plant('command-args-split', 'drift')}`)],
      },
    }),
  );

  // 3. Values of sensitive variables and outputs, reappearing verbatim where nothing masks them.
  const variableValue = `vv-${plant('sensitive-variable', 'variable, drift and diagnostics')}`;
  variables.admin_login = { value: variableValue };
  drift.push(
    resource('aws_sqs_queue.echoes_variable', {
      before: { name: 'echo-variable', description: 'plain' },
      after: { name: 'echo-variable', description: `created by ${variableValue}` },
    }),
  );
  diagnostics.push(`Error: invalid value for admin_login: ${variableValue} is not allowed`);

  // A sensitive value with characters a URL escapes, reappearing percent-encoded (`urlencode`).
  const rawValue = `p@ss w0rd/${plant('sensitive-variable-urlencoded', 'drift and diagnostics')}`;
  variables.bind_password = { value: rawValue };
  const queryEscaped = encodeURIComponent(rawValue).replace(/%20/g, '+');
  drift.push(
    resource('aws_sqs_queue.echoes_urlencoded', {
      before: { name: 'echo-urlencoded', description: 'plain' },
      after: {
        name: 'echo-urlencoded',
        description: `https://hooks.example.com/bind?u=app&k=${queryEscaped}`,
      },
    }),
  );
  diagnostics.push(`Error: GET https://hooks.example.com/bind?k=${queryEscaped} returned 403`);

  const outputValue = `ov-${plant('sensitive-output', 'output')}`;
  outputs.connection = {
    actions: ['update'],
    before: 'old-connection-value',
    after: outputValue,
    after_unknown: false,
    before_sensitive: true,
    after_sensitive: true,
  };
  changes.push(
    resource('aws_sqs_queue.echoes_output', {
      before: { name: 'echo-output', description: 'plain' },
      after: { name: 'echo-output', description: outputValue },
    }),
  );
  diagnostics.push(`Warning: output connection is ${outputValue}`);

  // 4. A resource type that holds secrets, with an innocently named attribute (caught only without masks).
  drift.push(
    resource('aws_lambda_function.innocent', {
      before: { function_name: 'innocent', environment: [{ variables: { MYSTERY: 'old' } }] },
      after: {
        function_name: 'innocent',
        environment: [
          { variables: { MYSTERY: masks ? 'visible-by-design' : plant('maskless-0x', 'drift') } },
        ],
      },
    }),
  );

  // 5. Values newer engines write beside the changes, which driftwatch never shows: resource identity
  // (terraform v1.12 jsonplan.Change.BeforeIdentity/AfterIdentity and Importing.Identity, jsonstate
  // Resource.IdentityValues) and action inputs (terraform v1.14 jsonplan.ActionInvocation.ConfigValues).
  // Plain values, not credential-shaped: nothing but not reading them keeps them out. Format 1.2 only.
  const actionInvocations: unknown[] = [];
  if (masks) {
    const identity = (place: string) => ({
      account_id: plant('resource-identity', place),
      bucket: `identity-${plant('resource-identity', place)}`,
    });
    const withIdentity = (made: { change: Record<string, unknown> }, extra: Record<string, unknown>) => ({
      ...made,
      change: { ...made.change, ...extra },
    });
    drift.push(
      withIdentity(
        resource('aws_s3_bucket.identified', {
          before: { bucket: 'identified', acl: 'private' },
          after: { bucket: 'identified', acl: 'public-read' },
        }),
        {
          before_identity: identity('drift-before-identity'),
          after_identity: identity('drift-after-identity'),
        },
      ),
    );
    changes.push(
      withIdentity(
        resource('aws_s3_bucket.imported', {
          actions: ['no-op'],
          before: { bucket: 'imported' },
          after: { bucket: 'imported' },
        }),
        {
          importing: { identity: identity('pending-import-identity') },
          after_identity: identity('pending-after-identity'),
        },
      ),
    );
    prior.push({
      ...stateResource('aws_s3_bucket.identified', { bucket: 'identified', acl: 'public-read' }),
      identity_schema_version: 0,
      identity: identity('prior-state-identity'),
    });
    actionInvocations.push({
      address: 'action.aws_lambda_invoke.notify',
      type: 'aws_lambda_invoke',
      name: 'notify',
      config_values: {
        function_name: 'notify',
        payload: JSON.stringify({ note: plant('action-input', 'action-config-values') }),
      },
      config_sensitive: {},
      config_unknown: {},
      provider_name: 'registry.terraform.io/hashicorp/aws',
      lifecycle_action_trigger: {
        triggering_resource_address: 'aws_s3_bucket.identified',
        action_trigger_event: 'after_update',
        action_trigger_block_index: 0,
        actions_list_index: 0,
      },
    });
  }

  const plan: Record<string, unknown> = {
    format_version: formatVersion,
    terraform_version: masks ? '1.11.4' : '0.13.7',
    variables,
    planned_values: {
      outputs: { connection: { sensitive: true, value: outputValue } },
      root_module: {},
    },
    resource_drift: drift,
    resource_changes: changes,
    output_changes: outputs,
    ...(masks ? { action_invocations: actionInvocations } : {}),
    prior_state: {
      format_version: '1.0',
      terraform_version: '1.11.4',
      values: {
        outputs: { connection: { sensitive: true, value: outputValue } },
        root_module: { resources: prior },
      },
    },
    configuration: {
      provider_config: { aws: { name: 'aws', expressions: providerExpressions } },
      root_module: {
        outputs: { connection: { sensitive: true, expression: { references: ['var.admin_login'] } } },
        variables: { admin_login: { sensitive: true, description: 'who administers' } },
      },
    },
    timestamp: '2026-03-01T02:00:00Z',
    applyable: true,
    complete: true,
    errored: false,
  };
  return { plan, stderr: diagnosticsText(diagnostics), canaries };
}

/** Terraform's diagnostics as a terminal shows them (box drawing, a code snippet, value lines). */
function diagnosticsText(errors: readonly string[]): string {
  return errors
    .map((line) =>
      [
        `╷`,
        `│ ${line}`,
        `│`,
        `│   with aws_sqs_queue.x,`,
        `│   on main.tf line 3:`,
        `│    3: resource "aws_sqs_queue" "x" {`,
        `╵`,
      ].join('\n'),
    )
    .join('\n');
}

function containerDefinitions(environment: Array<{ name: string; value: string }>): string {
  return JSON.stringify([{ name: 'app', image: 'app:1', essential: true, environment }]);
}

export interface PlantedObjects {
  desired: Record<string, unknown>[];
  live: Record<string, unknown>[];
  canaries: Canary[];
}

/** Kubernetes objects (apps/v1 Deployment, v1 ConfigMap shapes) whose live side carries canaries. */
export function plantKubeObjects(): PlantedObjects {
  const canaries: Canary[] = [];
  const plant = (category: string, place: string): string => {
    const core = newCore();
    canaries.push({ category, place, core });
    return core;
  };
  const deployment = (env: Array<{ name: string; value: string }>) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'api', namespace: 'prod' },
    spec: {
      template: {
        spec: { containers: [{ name: 'api', image: 'api:1', env }] },
      },
    },
  });
  const configMap = (data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: 'prod' },
    data,
  });
  const liveEnv = Object.entries(VALUE_CATEGORIES).map(([category, make], index) => ({
    name: `SETTING_${index}`,
    value: make(plant(category, 'cluster-env')),
  }));
  liveEnv.push({
    name: 'DATABASE_URL',
    value: `postgres://u:${plant('url-userinfo', 'cluster-env')}@db/app`,
  });
  const liveData: Record<string, string> = {};
  for (const [category, make] of Object.entries(VALUE_CATEGORIES)) {
    liveData[`setting-${category}`] = make(plant(category, 'cluster-configmap'));
  }
  for (const name of NORMALISED_NAMES) liveData[name] = plant(`normalised-name:${name}`, 'cluster-configmap');
  const live = deployment(liveEnv);
  live.spec.template.spec.containers.push({
    name: 'backup',
    image: 'mysql:8',
    command: ['mysqldump'],
    args: ['-uroot', `-p${plant('command-args-split', 'cluster-container')}`],
  } as never);
  return {
    desired: [deployment([{ name: 'DATABASE_URL', value: 'postgres://db/app' }]), configMap({ mode: 'a' })],
    live: [live, configMap({ mode: 'a', ...liveData })],
    canaries,
  };
}

/** The canaries whose core appears in `text`, for a failure message that names each leak. */
export function leakedCanaries(canaries: readonly Canary[], text: string): string[] {
  return canaries
    .filter((canary) => text.includes(canary.core))
    .map((canary) => `${canary.category} @ ${canary.place}`);
}
