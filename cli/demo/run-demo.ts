import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AuthorizeSecurityGroupIngressCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { PutBucketTaggingCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteTopicCommand, ListTopicsCommand, SNSClient } from '@aws-sdk/client-sns';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { withHttpTimeouts } from '../../functions/adapters/aws-http-timeouts.js';
import { createLogger } from '../../functions/adapters/logger.js';
import { createFsObjectStore } from '../../functions/adapters/object-store/fs-object-store.js';
import { createSnsPublisher, deliveredBodies } from '../../functions/adapters/sns-publisher.js';
import { temporaryDirectory } from '../../functions/adapters/terraform/interrupt-cleanup.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';
import { resourceLabel } from '../../functions/core/findings/describe.js';
import type { Finding } from '../../functions/core/findings/model.js';
import type { Team } from '../../functions/core/registry/model.js';
import { CliError, resolveHasher } from '../context.js';
import { runLocalScan } from '../local-runner.js';
import { renderFindings } from '../output.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { loadRegistryFile } from '../registry-file.js';
import { createOwnerInboxes, renderDigest, renderDocument, renderEmail } from './chat-inbox.js';
import { motoEnvironment, startMoto } from './moto.js';
import { demoNextSteps } from './next-steps.js';
import {
  createStateBucket,
  hardenStateBucketExceptTls,
  provisioningStatus,
  type StagedWorkspace,
  stageWorkspace,
} from './provision.js';

export const ESTATE_DIR = `${join(PACKAGE_ROOT, 'examples', 'estate')}/`;

/** The out-of-band changes the demo makes, and the finding each one must produce. */
export const DEMO_CHANGES = [
  {
    workspace: 'payments-prod',
    address: 'aws_s3_bucket.ledger',
    what: 'tag Owner changed from payments to finance',
  },
  { workspace: 'payments-prod', address: 'aws_security_group.db', what: 'SSH opened to 0.0.0.0/0' },
  {
    workspace: 'payments-prod',
    address: 'aws_ssm_parameter.db_password',
    what: 'SecureString value changed',
  },
  { workspace: 'platform-prod', address: 'aws_sns_topic.deploys', what: 'topic deleted' },
] as const;

/** What the backend check must find on the demo's state bucket (see hardenStateBucketExceptTls). */
export const DEMO_BACKEND_FINDINGS = ['backend.tls-only'];

export interface DemoResult {
  findings: Finding[];
  /** True when every staged change was found and nothing else above info was reported. */
  asPlanned: boolean;
  storeLocation: string;
}

/**
 * `npm start`: a local end-to-end run on examples/estate. moto_server plays AWS, real Terraform
 * provisions three workspaces, the AWS SDK changes things behind Terraform's back, and the scan
 * finds them. moto is always stopped, Ctrl-C included.
 */
export async function runDemo(options: {
  storeDir: string;
  print: (line: string) => void;
}): Promise<DemoResult> {
  const { print } = options;
  const step = (text: string) => print(`\n==> ${text}`);
  const started = Date.now();
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)}s`;

  step('Checking prerequisites');
  const terraformVersion = await checkTerraform();
  print(`    terraform ${terraformVersion}`);

  step('Starting moto_server (a local stand-in for AWS) on a free port');
  const moto = await startMoto();
  const staged: StagedWorkspace[] = [];
  try {
    for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_ROLE_ARN', 'AWS_WEB_IDENTITY_TOKEN_FILE'])
      delete process.env[name];
    Object.assign(process.env, motoEnvironment(moto.endpoint));
    print(`    ${moto.endpoint}`);

    const loaded = loadRegistryFile(`${ESTATE_DIR}driftwatch.yaml`);
    const { workspaces } = loaded.registry;
    const region = workspaces[0]!.backend.region;
    const s3 = new S3Client(withHttpTimeouts());
    const stateBucket = workspaces[0]!.backend.bucket;
    await createStateBucket(s3, stateBucket, region);
    // Everything a careful platform team sets on a state bucket, but the TLS-only policy: moto cannot
    // serve objects from a bucket whose policy has a Condition, so the backend check will flag that.
    await hardenStateBucketExceptTls(s3, stateBucket);
    const teams = loaded.registry.owners.teams;
    const inboxes = await createOwnerInboxes(teams.map((team) => team.id));

    step(
      `Provisioning examples/estate with real Terraform: ${workspaces.map((workspace) => workspace.id).join(', ')} (about 40 s on 2 cores)`,
    );
    // The longest silence of the demo otherwise: nothing prints until the first apply is done.
    print(
      `    waiting for terraform init + apply, ${workspaces.length} at once; a line as each workspace finishes`,
    );
    await Promise.all(
      workspaces.map(async (workspace) => {
        const source = 'dir' in workspace.source ? workspace.source.dir : '';
        const stage = await stageWorkspace({
          source: `${ESTATE_DIR}${source}`,
          backend: workspace.backend,
          env: workspace.env,
          logger: provisioningStatus((line) => print(`    ${workspace.id}: ${line}`)),
        });
        staged.push(stage);
        await stage.terraform(['apply', '-auto-approve', '-input=false']);
        print(`    ${workspace.id}: applied (${elapsed()})`);
      }),
    );

    step("Changing things behind Terraform's back with the AWS SDK");
    await makeOutOfBandChanges();
    for (const change of DEMO_CHANGES) print(`    ${change.workspace}: ${change.address}: ${change.what}`);
    print(
      `    (and the state bucket ${stateBucket} has every safeguard but a TLS-only policy, which moto cannot serve)`,
    );

    step(
      'Scanning: state backends and locks, then refresh-only plans; read-only, no locks taken (driftwatch scan)',
    );
    await rm(options.storeDir, { recursive: true, force: true });
    const store = createFsObjectStore(options.storeDir);
    const result = await runLocalScan({
      loaded,
      store,
      hashSensitive: resolveHasher(),
      logger: createLogger({ format: 'text', write: (line) => print(`    ${line}`) }),
      concurrency: 3,
      publisher: createSnsPublisher(new SNSClient(withHttpTimeouts()), { topicArn: inboxes.topicArn }),
    });

    step(`Findings (${elapsed()})`);
    print(renderFindings(result.findings, 'table').trimEnd());
    const asPlanned = demoWentAsPlanned(result.findings);
    print(`\nStored in ${store.location}/${result.summaryKey.replace(/summary\.json$/, '')}`);
    step("Each owner's digest, as it appears in their chat channel (SNS → filtered subscription)");
    for (const team of teams) {
      for (const digest of await inboxes.drain(team.id)) {
        print(renderDigest(digest.body, describeChannel(team)));
      }
    }
    const [first] = result.notified?.sent ?? [];
    if (first) {
      step(
        `The same digest of ${first.owner} by e-mail (plain text), and as its SQS or HTTPS destination gets it`,
      );
      // moto delivers nothing to e-mail subscriptions: this is the `email` body of the message SNS was given.
      print(
        renderEmail(
          { subject: first.email?.subject ?? '', text: deliveredBodies(first).email },
          `e-mail to ${first.owner}`,
        ),
      );
      for (const received of await inboxes.drainMachines(first.owner))
        print(
          renderDocument(
            received.raw,
            `SQS queue of ${first.owner} (an HTTPS endpoint receives the same body)`,
          ),
        );
    }
    // WriteReports wrote the night's HTML reports into the store, as the deployed stack does.
    for (const line of demoNextSteps({
      storeDir: options.storeDir,
      ...(result.reports ? { everyoneReport: result.reports.everyone } : {}),
      registryFile: loaded.path,
      cwd: process.cwd(),
    }))
      print(line);
    if (!asPlanned) print('\nThe demo did not find exactly the staged changes: see the table above.');
    return { findings: result.findings, asPlanned, storeLocation: store.location };
  } finally {
    step('Stopping moto_server');
    await Promise.all(staged.map((stage) => stage.dispose()));
    await moto.stop();
  }
}

function describeChannel(team: Team): string {
  const destination = team.destinations[0];
  if (destination?.type === 'chatbot-slack')
    return `Slack ${destination.workspace}/#${destination.channel} (${team.id})`;
  if (destination?.type === 'email') return `email ${destination.address} (${team.id})`;
  return team.id;
}

/** Every staged change found, and nothing else above info (no noise made it through). */
export function demoWentAsPlanned(findings: readonly Finding[]): boolean {
  const open = findings.filter((finding) => finding.status !== 'resolved');
  const isStaged = (finding: Finding) =>
    DEMO_CHANGES.some(
      (change) => finding.workspace === change.workspace && resourceLabel(finding) === change.address,
    ) || DEMO_BACKEND_FINDINGS.includes(finding.ruleId);
  const stagedFound =
    DEMO_CHANGES.every((change) =>
      open.some(
        (finding) => finding.workspace === change.workspace && resourceLabel(finding) === change.address,
      ),
    ) && DEMO_BACKEND_FINDINGS.every((ruleId) => open.some((finding) => finding.ruleId === ruleId));
  const unexpected = open.filter((finding) => finding.severity !== 'info' && !isStaged(finding));
  return stagedFound && unexpected.length === 0;
}

async function makeOutOfBandChanges(): Promise<void> {
  const s3 = new S3Client(withHttpTimeouts());
  const ec2 = new EC2Client(withHttpTimeouts());
  const ssm = new SSMClient(withHttpTimeouts());
  const sns = new SNSClient(withHttpTimeouts());
  await s3.send(
    new PutBucketTaggingCommand({
      Bucket: 'payments-ledger-prod',
      Tagging: {
        TagSet: [
          { Key: 'Owner', Value: 'finance' },
          { Key: 'Environment', Value: 'prod' },
        ],
      },
    }),
  );
  const groups = await ec2.send(new DescribeSecurityGroupsCommand({ GroupNames: ['payments-db-prod'] }));
  await ec2.send(
    new AuthorizeSecurityGroupIngressCommand({
      GroupId: groups.SecurityGroups?.[0]?.GroupId,
      IpPermissions: [
        {
          IpProtocol: 'tcp',
          FromPort: 22,
          ToPort: 22,
          IpRanges: [{ CidrIp: '0.0.0.0/0', Description: 'debug' }],
        },
      ],
    }),
  );
  await ssm.send(
    new PutParameterCommand({
      Name: '/payments/prod/db-password',
      Value: 'rotated-by-hand',
      Type: 'SecureString',
      Overwrite: true,
    }),
  );
  // A topic rather than the queue: the AWS provider retries the read of a queue it cannot find for
  // 20 s (SQS is eventually consistent), which the scan and its deletion re-read would each wait out.
  await sns.send(new DeleteTopicCommand({ TopicArn: await topicArn(sns, 'platform-deploys') }));
}

async function topicArn(sns: SNSClient, name: string): Promise<string> {
  let NextToken: string | undefined;
  do {
    const page = await sns.send(new ListTopicsCommand({ NextToken }));
    const arn = page.Topics?.find((topic) => topic.TopicArn?.endsWith(`:${name}`))?.TopicArn;
    if (arn) return arn;
    NextToken = page.NextToken;
  } while (NextToken);
  throw new Error(`the demo's topic ${name} is missing: was examples/estate/platform applied?`);
}

async function checkTerraform(): Promise<string> {
  const { path: dir, remove } = temporaryDirectory('driftwatch-tfversion-');
  try {
    const result = await runProcess('terraform', ['version', '-json'], {
      cwd: dir,
      env: { ...process.env, CHECKPOINT_DISABLE: '1' },
      timeoutMs: 30_000,
      stdoutFile: join(dir, 'version.json'),
    }).catch(() => undefined);
    if (result?.exitCode !== 0) {
      throw new CliError(
        'terraform is not on PATH. Install Terraform >= 1.5: https://developer.hashicorp.com/terraform/install',
      );
    }
    const version = (
      JSON.parse(await readFile(join(dir, 'version.json'), 'utf8')) as { terraform_version: string }
    ).terraform_version;
    const [major, minor] = version.split('.').map(Number);
    if (major! < 1 || (major === 1 && minor! < 5))
      throw new CliError(`terraform ${version} is too old: driftwatch needs >= 1.5`);
    return version;
  } finally {
    await remove();
  }
}
