import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { type Duration, Size, Stack, Stage, Validations } from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { REPO_ROOT } from '../paths.js';

/** The handlers of functions/handlers/ the stack deploys (file names without .ts). */
export type HandlerName =
  | 'load-registry'
  | 'check-backend'
  | 'observe-locks'
  | 'confirm-locks'
  | 'scan-terraform'
  | 'scan-cluster'
  | 'record-scan-failure'
  | 'record-findings'
  | 'write-reports'
  | 'notify-owners'
  | 'check-health'
  | 'query-findings';

export interface DriftwatchFunctionProps {
  handler: HandlerName;
  description: string;
  memoryMiB: number;
  timeout: Duration;
  logRetentionDays: number;
  environment?: Record<string, string>;
  /** A fixed role name, for roles other accounts trust by ARN (the scanner roles). */
  roleName?: string;
  /**
   * Package the handler into a container image built from this Dockerfile (repository-relative)
   * instead of a zip: for handlers that need more than Node (the Terraform binary).
   */
  image?: { dockerfile: string; ephemeralStorageMiB: number };
}

/**
 * ESM bundles run in Lambda's Node 24 as `index.mjs`; a few CommonJS dependencies still call
 * `require`, which ESM does not define, so every bundle starts by creating one.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire as __driftwatchCreateRequire } from 'node:module'; const require = __driftwatchCreateRequire(import.meta.url);";
const NODE_TARGET = 'node24';
/** The Terraform image's architecture (and Platform.LINUX_AMD64 for its build): see the class comment. */
export const IMAGE_ARCHITECTURE = lambda.Architecture.X86_64;

/**
 * Every Lambda of driftwatch, one way: Node 24 on ARM64 (cheaper per GB-second), except the
 * Terraform image, which runs on x86_64: lock files made in CI carry h1 checksums for linux_amd64
 * only, and the image's warm provider copy and the plugin cache can be checked by h1 alone
 * (docs/providers.md#why-x86_64), ESM bundled by the local esbuild (no Docker at synth), its own role
 * and log group with retention, X-Ray tracing. The role is created here, not by Lambda's default,
 * so it carries no managed policy: logs go to this function's log group only.
 */
export class DriftwatchFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  /** The function's environment as given (plain values): another runner of the same image reuses it. */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: DriftwatchFunctionProps) {
    super(scope, id);
    this.environment = { ...props.environment };
    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetentionDays });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `driftwatch ${props.handler}`,
      ...(props.roleName ? { roleName: props.roleName } : {}),
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    const common = {
      description: props.description,
      architecture: props.image ? IMAGE_ARCHITECTURE : lambda.Architecture.ARM_64,
      memorySize: props.memoryMiB,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: {
        LOG_LEVEL: 'info',
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    };
    this.function = props.image
      ? new lambda.DockerImageFunction(this, 'Function', {
          ...common,
          code: lambda.DockerImageCode.fromImageAsset(
            stageImageContext(this, props.handler, props.image.dockerfile),
            { platform: Platform.LINUX_AMD64 },
          ),
          ephemeralStorageSize: Size.mebibytes(props.image.ephemeralStorageMiB),
        })
      : new nodejs.NodejsFunction(this, 'Function', {
          ...common,
          runtime: lambda.Runtime.NODEJS_24_X,
          entry: join(REPO_ROOT, 'functions', 'handlers', `${props.handler}.ts`),
          handler: 'handler',
          projectRoot: REPO_ROOT,
          depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
          bundling: {
            format: nodejs.OutputFormat.ESM,
            target: NODE_TARGET,
            mainFields: ['module', 'main'],
            banner: ESM_REQUIRE_BANNER,
            minify: true,
            sourceMap: true,
            sourcesContent: false,
            // The SDK versions the tests ran against, not whichever the runtime happens to carry.
            bundleAwsSDK: true,
            forceDockerBundling: false,
          },
        });

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    });
  }
}

/**
 * The container's build context: the repository's Dockerfile plus the handler bundled by the local
 * esbuild (the same bundle a zip function gets), staged at synth; the image
 * itself is built only at deploy, so synth needs no Docker.
 */
export function stageImageContext(scope: Construct, handler: HandlerName, dockerfile: string): string {
  // Inside the cloud assembly's directory (cdk.out): rebuilt by every synth, never left in /tmp.
  const dir = join(Stage.of(scope)?.outdir ?? tmpdir(), '.image-context', handler);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'handler'), { recursive: true });
  copyFileSync(join(REPO_ROOT, dockerfile), join(dir, 'Dockerfile'));
  if (!Stack.of(scope).bundlingRequired) {
    // `cdk destroy`/`cdk list` of another stack: no bundle needed, keep synth fast.
    writeFileSync(join(dir, 'handler', 'index.mjs'), '// not bundled: this stack was not selected\n');
    return dir;
  }
  buildSync({
    entryPoints: [join(REPO_ROOT, 'functions', 'handlers', `${handler}.ts`)],
    outfile: join(dir, 'handler', 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: NODE_TARGET,
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'error',
  });
  for (const name of RUNTIME_PACKAGES[handler] ?? []) copyPackageTree(name, REPO_ROOT, join(dir, 'handler'));
  for (const [file, entry] of Object.entries(CONTAINER_ENTRYPOINTS[handler] ?? {})) {
    // A few lines that import the Lambda's own index.mjs at run time: one copy of the handler code.
    buildSync({
      entryPoints: [join(REPO_ROOT, entry)],
      outfile: join(dir, 'handler', file),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: NODE_TARGET,
      // The entrypoint imports ./index.mjs by a computed name at run time: esbuild leaves it alone.
      logLevel: 'error',
    });
  }
  return dir;
}

/**
 * Scripts beside the handler in its image, for runners other than Lambda: CodeBuild runs
 * `node /var/task/runner-entrypoint.mjs` (infra/constructs/codebuild-runner.ts).
 */
export const CONTAINER_ENTRYPOINTS: Partial<Record<HandlerName, Record<string, string>>> = {
  'scan-terraform': { 'runner-entrypoint.mjs': 'functions/entrypoints/scan-terraform-container.ts' },
};

/**
 * Packages a handler loads at run time instead of from its bundle: they read files beside their own
 * code (the HCL parser its WebAssembly), so they ship as installed, in node_modules beside index.mjs.
 */
const RUNTIME_PACKAGES: Partial<Record<HandlerName, readonly string[]>> = {
  'scan-terraform': ['@cdktn/hcl2json'],
};

/** Copies a package and its dependencies, resolved the way Node resolves them, into `target`/node_modules. */
function copyPackageTree(name: string, from: string, target: string, copied = new Set<string>()): void {
  let dir = from;
  let found: string | undefined;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) {
      found = candidate;
      break;
    }
    if (dir === REPO_ROOT || dirname(dir) === dir) break;
    dir = dirname(dir);
  }
  if (found === undefined) throw new Error(`${name} is not installed: run npm ci before synth`);
  if (copied.has(found)) return;
  copied.add(found);
  // Nested copies keep their place relative to the repository's node_modules.
  const destination = join(target, relative(REPO_ROOT, found));
  cpSync(found, destination, { recursive: true, filter: (path) => !path.endsWith('.map') });
  const manifest = JSON.parse(readFileSync(join(found, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const dependency of Object.keys(manifest.dependencies ?? {}))
    copyPackageTree(dependency, found, target, copied);
}
