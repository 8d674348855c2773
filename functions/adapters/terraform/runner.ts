import { chmodSync, createReadStream, existsSync, mkdtempSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { redactText, type SensitiveHasher } from '../../core/redaction/secrets.js';
import { summarizeTerraformErrors } from '../../core/redaction/terraform-diagnostics.js';
import type { SecretReference, WorkspaceConfig } from '../../core/registry/model.js';
import { isPlaceholder } from '../../core/registry/starter.js';
import { stateObjectKey } from '../../core/registry/state-key.js';
import {
  type PlanRun,
  type PreparedWorkspace,
  type RunStage,
  TerraformRunError,
  type WorkspaceCredentials,
} from '../../core/scan/ports.js';
import type { ConfigurationFacts } from '../../core/terraform/configuration.js';
import {
  engineBinaryName,
  engineVersionFile,
  meetsRequest,
  selectVersion,
  versionRequest,
} from '../../core/terraform/engine-version.js';
import { PlanFormatError, secretLiteralsOf } from '../../core/terraform/index.js';
import { lockChecksumFailure } from '../../core/terraform/provider-lock.js';
import { type FailedRead, failedReadsIn } from '../../core/terraform/provider-log.js';
import { describeAwsError } from '../aws-error.js';
import { errorCode } from '../aws-read-failure.js';
import type { Logger } from '../logger.js';
import { isWithin } from '../path-within.js';
import { readPlanFile } from '../plan-file.js';
import { readBackendBlock } from './backend-block.js';
import {
  type BinaryCache,
  BinaryInstallError,
  binaryCacheOptionsFromEnv,
  createBinaryCache,
} from './binary-cache.js';
import {
  defaultPluginCacheDir,
  type ProviderSource,
  providerInstallHint,
  RUNNER_PLATFORM,
  resolveProviderSource,
  terraformEnvironment,
} from './cli-config.js';
import { configurationFiles } from './configuration-files.js';
import { readRequiredVersions, readTerraformConfiguration } from './configuration-reader.js';
import { markOwner, removeOnInterrupt, sweepAbandonedDirs } from './interrupt-cleanup.js';
import { explainModuleAccess, prepareModuleCredentials } from './module-credentials.js';
import { withPluginCacheLock } from './plugin-cache-lock.js';
import { detachProvidersFromCache } from './provider-links.js';
import { inheritedVariableHint, isolateRunEnvironment, sweepPluginCache } from './run-environment.js';
import { describeExit, type ProcessResult, runProcess } from './run-process.js';

export interface TerraformRunnerOptions {
  hashSensitive: SensitiveHasher;
  /** Relative `source.dir` entries are resolved against this directory (the registry file's). */
  registryDir: string;
  /** Downloads an S3 source bundle (.tar.gz) to a local file. */
  downloadBundle?: (s3Uri: string, destination: string) => Promise<void>;
  terraformBinary?: string;
  /** The `tofu` of `engine: opentofu` workspaces (default: DRIFTWATCH_TOFU, then tofu on PATH). */
  tofuBinary?: string;
  /** Other Terraform/OpenTofu versions (default: configured by the environment, binary-cache.ts). */
  binaryCache?: BinaryCache;
  /** Parent directory of the per-workspace working directories. */
  workRoot?: string;
  /** Reused across runs and workspaces: providers are installed once, not per scan. */
  pluginCacheDir?: string;
  /** Per Terraform command; the whole process group is killed when it fires. */
  commandTimeoutMs?: number;
  /**
   * When Terraform must have stopped (epoch ms): each command's timeout is cut to what is left, so
   * the scan records its own timeout (`scan.timeout`) before its host kills it. `hint` ends the
   * message, e.g. '; set runner: codebuild'. Without commandTimeoutMs, the deadline alone limits.
   */
  deadline?: { atMs: number; hint?: string; now?: () => number };
  /** Says when a stale plugin cache lock is taken over, or a live one makes the scan wait. */
  logger?: Logger;
  /** Environment Terraform inherits (PATH, proxies, AWS_ENDPOINT_URL, the default credential chain). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Plans up to this size are parsed in memory; larger ones are streamed. */
  inMemoryPlanLimitBytes?: number;
  /**
   * Reads what the plan does not say (ignore_changes, removed blocks) from the checked-out source;
   * undefined when it cannot. Defaults to the HCL reader.
   */
  readConfiguration?: (
    rootDir: string,
    options: { tofu: boolean },
  ) => Promise<ConfigurationFacts | undefined>;
  /**
   * Reads a sensitive variable's value (Secrets Manager in AWS, the environment locally). Without
   * it, a workspace with sensitiveVars fails its scan instead of planning without them.
   */
  resolveSecret?: (reference: SecretReference) => Promise<string>;
}

const SOURCE_EXCLUDES = new Set(['.terraform', '.git', 'node_modules', '.driftwatch']);
const STATE_OR_PLAN_FILE = /\.(tfstate|tfstate\.backup|tfplan)$/;
const DEFAULT_TIMEOUT_MS = 15 * 60_000;
/**
 * A plan at its time limit is killed outright. Terraform answers SIGTERM (and SIGINT) during a plan
 * by persisting the state it holds before it stops; for a state object that does not exist yet,
 * that writes a new empty state into the backend, and every later scan then reads that empty state
 * and reports no drift instead of `scan.state-missing`. A refresh-only plan has nothing to clean up
 * (no lock, the working directory is removed by the runner), so nothing is lost by SIGKILL.
 */
const PLAN_STOP_SIGNAL = 'SIGKILL';

/**
 * The Terraform runner adapter: one isolated temporary directory per workspace, `init` once, then
 * refresh-only plans that never lock and never write state, `show -json` to a file, and the plan
 * compacted (secrets hashed) before anything else sees it. Plan files are deleted right after use.
 */
export function createTerraformRunner(options: TerraformRunnerOptions) {
  const binary = commandPath(options.terraformBinary ?? process.env.DRIFTWATCH_TERRAFORM ?? 'terraform');
  const baseEnv = options.baseEnv ?? process.env;
  const workRoot = options.workRoot ?? tmpdir();
  const pluginCacheDir = options.pluginCacheDir ?? defaultPluginCacheDir(baseEnv);
  const timeoutMs =
    options.commandTimeoutMs ?? (options.deadline ? Number.POSITIVE_INFINITY : DEFAULT_TIMEOUT_MS);
  const clock = options.deadline?.now ?? Date.now;
  const budgetMs = options.deadline ? options.deadline.atMs - clock() : undefined;

  /** The next command's timeout: the per-command limit, or what is left of the scan's time budget. */
  function nextLimit(): { ms: number; budget: boolean } {
    if (!options.deadline) return { ms: timeoutMs, budget: false };
    const left = Math.max(0, options.deadline.atMs - clock());
    return left < timeoutMs ? { ms: left, budget: true } : { ms: timeoutMs, budget: false };
  }

  function timedOut(stage: RunStage, limit: { ms: number; budget: boolean }): TerraformRunError {
    const reason = limit.budget
      ? `${stage} exceeded ${Math.round((budgetMs ?? 0) / 60_000)} min${options.deadline?.hint ?? ''}`
      : `terraform ${stage} did not finish in ${formatLimit(limit.ms)} and was stopped: a provider waiting on an endpoint that does not answer is the usual cause (check its endpoints, proxy and network)`;
    return new TerraformRunError(stage, reason, { timedOut: true });
  }
  const versions = new Map<string, Promise<string | undefined>>();
  // Once per runner: what runs killed outright left in the work root (plan files hold state values).
  let swept: Promise<void> | undefined;
  const sweepOnce = () => {
    swept ??= sweepAbandonedDirs(workRoot, 'driftwatch-').then((removed) => {
      if (removed.length > 0)
        options.logger?.info('removed the working directories of killed scans', { count: removed.length });
    });
    return swept;
  };

  async function prepare(
    workspace: WorkspaceConfig,
    credentials: WorkspaceCredentials | undefined,
  ): Promise<PreparedWorkspace> {
    await sweepOnce();
    const workDir = workingDirectory(workRoot, `driftwatch-${workspace.id}-`);
    // Plan files, state read by the plan and Terraform's own temp files all live under workDir.
    const forgetWorkDir = removeOnInterrupt(workDir);
    try {
      const root = await materializeSource(workspace, workDir);
      await assertS3Backend(root, workspace);
      const varFiles = await locateVarFiles(workspace, join(workDir, 'source'), root);
      const terraform = await resolveBinary(workspace, root);
      const sensitive = await sensitiveVariableEnv(workspace);
      await ensurePluginCache(pluginCacheDir);
      const env = { ...(await terraformEnv(workspace, credentials, workDir, root)), ...sensitive };
      const sensitiveValues = Object.values(sensitive);
      // Private module credentials: files in workDir and variables for init only (module-credentials.ts).
      const modules = await prepareModuleCredentials({
        workspace,
        dir: join(workDir, 'module-credentials'),
        resolveSecret: options.resolveSecret,
      });
      const knownSecrets = [...secretsIn(env), ...sensitiveValues, ...modules.secrets];
      // The same inputs for every plan of this run: the deletion guard's confirming plan included.
      const variableArgs = planVariableArgs(workspace, varFiles);
      const run = (stage: RunStage, args: string[], stdoutFile?: string) =>
        runTerraform(terraform, args, { cwd: root, env, stdoutFile }, stage, knownSecrets);

      // The workspace's lock file decides the provider versions and hashes, and stays as committed.
      // Without one, Terraform selects by the constraints; readonly would then refuse the selection
      // ("Provider dependency changes detected"), so it writes a lock file into the run's copy only.
      const initArgs = [
        'init',
        '-input=false',
        '-no-color',
        ...(existsSync(join(root, '.terraform.lock.hcl')) ? ['-lockfile=readonly'] : []),
        ...backendConfigArgs(workspace),
      ];
      // The holder kills its init at the timeout, so a lock older than that (and a margin) is abandoned.
      const init = withPluginCacheLock(
        pluginCacheDir,
        async () => {
          // Whatever an earlier run's providers left in the shared cache besides provider packages.
          await sweepPluginCache(pluginCacheDir);
          const result = await runTerraform(
            terraform,
            initArgs,
            { cwd: root, env: modules.initEnv(env) },
            'init',
            knownSecrets,
            (summary) =>
              providerInstallHint(summary, providerSource(workspace)) ?? missingWorkspaceHint(summary),
          );
          await detachFromCache(env);
          return result;
        },
        {
          logger: options.logger,
          maxHoldMs: Math.min(timeoutMs, budgetMs ?? timeoutMs) + 60_000,
        },
      );
      // Modules are fetched by init alone: their credentials are gone before any plan runs a provider.
      const initResult = await init.catch(explainModuleAccess).finally(modules.remove);
      const configuration = await (options.readConfiguration ?? readConfigurationFacts)(root, {
        tofu: workspace.engine === 'opentofu',
      });
      let planCount = 0;
      /** The secret values the last plan named: the deletion re-read's errors are redacted of them too. */
      let planLiterals: readonly string[] = [];
      // Never a lock, never a prompt: every plan of a scan, the deletion re-read included.
      const refreshOnly = ['plan', '-refresh-only', '-lock=false', '-input=false', '-no-color'];

      return {
        initDurationMs: initResult.durationMs,
        ...(configuration ? { configuration } : {}),
        async plan(): Promise<PlanRun> {
          planCount++;
          const planFile = join(workDir, `scan-${planCount}.tfplan`);
          const jsonFile = join(workDir, `scan-${planCount}.json`);
          try {
            const args = [...refreshOnly, '-detailed-exitcode', ...variableArgs];
            const limit = nextLimit();
            if (limit.ms <= 0) throw timedOut('plan', limit);
            const planned = await runProcess(terraform, [...args, `-out=${planFile}`], {
              cwd: root,
              env,
              timeoutMs: limit.ms,
              stopSignal: PLAN_STOP_SIGNAL,
            }).catch(cannotStart(terraform, 'plan'));
            const errorSummary = withProviderExitHint(
              summarizeTerraformErrors(planned.stderr, knownSecrets),
              planned.stderr,
            );
            if (planned.timedOut) throw timedOut('plan', limit);
            // Killed from outside: a plan file it was writing may be cut short, and its errors are not the cause.
            if (planned.signal) throw new TerraformRunError('plan', describeExit('terraform plan', planned));
            // Exit code 2 means "changes" even for a refresh-only plan with no drift, and an errored
            // plan may still be saved: only the plan JSON decides (DESIGN.md principle 2).
            if (!existsSync(planFile)) {
              throw new TerraformRunError(
                'plan',
                withVariableHint(errorSummary ?? describeExit('terraform plan', planned)),
              );
            }
            // Terraform writes the plan with the umask's mode (0644 here); it holds state values in plaintext.
            await chmod(planFile, 0o600);
            await run('show', ['show', '-json', '-no-color', planFile], jsonFile);
            const plan = await readPlanFile(jsonFile, {
              hashSensitive: options.hashSensitive,
              knownSecrets: sensitiveValues,
              inMemoryLimitBytes: options.inMemoryPlanLimitBytes,
            }).catch((error: unknown) => {
              if (error instanceof PlanFormatError) throw new TerraformRunError('evaluate', error.message);
              throw error;
            });
            // Diagnostics may echo values of sensitive variables and outputs: the plan names them.
            const literals = secretLiteralsOf(plan);
            planLiterals = literals;
            const summary =
              errorSummary !== undefined && literals.length > 0
                ? redactText(errorSummary, literals)
                : errorSummary;
            return {
              plan,
              exitCode: planned.exitCode,
              errorSummary: summary,
              durationMs: planned.durationMs,
            };
          } finally {
            await rm(planFile, { force: true });
            await rm(jsonFile, { force: true });
          }
        },
        async readFailures(addresses: readonly string[]): Promise<FailedRead[]> {
          planCount++;
          const log = join(workDir, `reads-${planCount}.log`);
          const limit = nextLimit();
          if (limit.ms <= 0) throw timedOut('plan', limit);
          try {
            const targets = addresses.map((address) => `-target=${address}`);
            const planned = await runProcess(terraform, [...refreshOnly, ...variableArgs, ...targets], {
              cwd: root,
              // The provider's debug log holds request and response bodies: it is written only into
              // the run's private directory, read for status codes alone, and removed right after.
              env: { ...env, TF_LOG_PROVIDER: 'DEBUG', TF_LOG_PATH: log },
              timeoutMs: limit.ms,
              stopSignal: PLAN_STOP_SIGNAL,
            }).catch(cannotStart(terraform, 'plan'));
            if (planned.timedOut) throw timedOut('plan', limit);
            // A re-read killed midway logged only some of its reads: the rest would pass for proof.
            if (planned.signal) throw new TerraformRunError('plan', describeExit('terraform plan', planned));
            // Only the lines of failed requests are kept in memory.
            const failures: string[] = [];
            for await (const line of readLines(log)) if (line.includes('StatusCode: ')) failures.push(line);
            const reads = failedReadsIn(failures);
            // Failed without a failed read to show for it: whatever stopped it, it proved nothing.
            if (planned.exitCode !== 0 && reads.length === 0)
              throw new TerraformRunError(
                'plan',
                withProviderExitHint(
                  summarizeTerraformErrors(planned.stderr, [...knownSecrets, ...planLiterals]),
                  planned.stderr,
                ) ?? describeExit('terraform plan', planned),
              );
            return reads;
          } finally {
            await rm(log, { force: true });
          }
        },
        async close() {
          await rm(workDir, { recursive: true, force: true });
          forgetWorkDir();
        },
      };
    } catch (error) {
      await rm(workDir, { recursive: true, force: true });
      forgetWorkDir();
      throw error;
    }
  }

  /** The run's providers no longer depend on cache entries that another init may replace. */
  async function detachFromCache(env: NodeJS.ProcessEnv): Promise<void> {
    if (!env.TF_DATA_DIR) return;
    const attached = await detachProvidersFromCache(env.TF_DATA_DIR, pluginCacheDir);
    if (attached.length > 0)
      options.logger?.debug('providers still linked into the plugin cache (no hard link possible)', {
        providers: attached,
      });
  }

  async function runTerraform(
    terraform: string,
    args: string[],
    processOptions: { cwd: string; env: NodeJS.ProcessEnv; stdoutFile?: string },
    stage: RunStage,
    knownSecrets: string[],
    /** Terraform's error summary with what driftwatch knows of its cause added, if it knows. */
    explain: (summary: string) => string | undefined = () => undefined,
  ): Promise<ProcessResult> {
    const limit = nextLimit();
    if (limit.ms <= 0) throw timedOut(stage, limit);
    const result = await runProcess(terraform, args, { ...processOptions, timeoutMs: limit.ms }).catch(
      cannotStart(terraform, stage),
    );
    if (result.timedOut) throw timedOut(stage, limit);
    if (result.signal) throw new TerraformRunError(stage, describeExit(`terraform ${args[0]}`, result));
    if (result.exitCode !== 0) {
      const summary = summarizeTerraformErrors(result.stderr, knownSecrets);
      const lockHint =
        stage === 'init' && summary ? lockChecksumFailure(summary, RUNNER_PLATFORM) : undefined;
      throw new TerraformRunError(
        stage,
        lockHint ?? (summary && explain(summary)) ?? summary ?? describeExit(`terraform ${args[0]}`, result),
      );
    }
    return result;
  }

  async function materializeSource(workspace: WorkspaceConfig, workDir: string): Promise<string> {
    const sourceDir = join(workDir, 'source');
    const { source } = workspace;
    try {
      if ('dir' in source) {
        const given = isAbsolute(source.dir) ? source.dir : resolve(options.registryDir, source.dir);
        // `driftwatch init` writes a placeholder where the bucket cannot tell the root: say that, not "missing".
        if (isPlaceholder(source.dir))
          throw new Error(
            `source.dir is still a placeholder (${source.dir}): set it to the directory of the Terraform root that writes this state, relative to the registry file (driftwatch routes --check lists the placeholders left)`,
          );
        const info = await stat(given).catch(() => undefined);
        if (!info)
          throw new Error(
            `source.dir ${given} does not exist: set source.dir to the directory of the Terraform root that writes this state, relative to the registry file (or check out the repository there)`,
          );
        if (!info.isDirectory())
          throw new Error(`source.dir ${given} is a file: give the directory of the Terraform root`);
        // A symlinked checkout is copied, not linked: Terraform writes its lock file where it runs.
        const from = await realpath(given);
        await cp(from, sourceDir, {
          recursive: true,
          filter: (path) => !SOURCE_EXCLUDES.has(basename(path)) && !STATE_OR_PLAN_FILE.test(path),
        });
      } else {
        if (!options.downloadBundle) throw new Error('S3 source bundles need an S3 client');
        const bundle = join(workDir, 'source.tgz');
        await options.downloadBundle(source.s3, bundle).catch((error: unknown) => {
          throw new Error(bundleDownloadProblem(source.s3, error, baseEnv), { cause: error });
        });
        await mkdir(sourceDir);
        const tar = await import('tar');
        await tar.x({ file: bundle, cwd: sourceDir, strict: true }).catch((error: unknown) => {
          throw new Error(bundleArchiveProblem(source.s3, error), { cause: error });
        });
        await rm(bundle, { force: true });
      }
    } catch (error) {
      throw new TerraformRunError('source', (error as Error).message, { cause: error });
    }
    const root = resolve(sourceDir, source.path ?? '.');
    if (!(await isInside(root, sourceDir)))
      throw new TerraformRunError(
        'source',
        `path ${source.path} leads outside the source (a symlink?): give the Terraform root's own directory as source.dir or path`,
      );
    // Said as source.dir's problems are: `path` is inside the copy, so neither an ENOTDIR that names
    // the temporary directory nor "no Terraform files" for a directory that is not there.
    const given = source.path === undefined ? 'the source root' : `path ${source.path}`;
    const within = 'dir' in source ? `source.dir ${source.dir}` : source.s3;
    const info = await stat(root).catch(() => undefined);
    if (!info)
      throw new TerraformRunError(
        'source',
        `${given} does not exist in ${within}: set path to the directory of the Terraform root, relative to source.dir or the bundle root`,
      );
    if (!info.isDirectory())
      throw new TerraformRunError(
        'source',
        `${given} is a file in ${within}: give the directory of the Terraform root as path`,
      );
    if (configurationFiles(root, { tofu: workspace.engine === 'opentofu' }).length === 0) {
      throw new TerraformRunError(
        'source',
        `no Terraform files in ${given} of ${within}: point source.dir and path at the Terraform root (the directory of its .tf files)`,
      );
    }
    return root;
  }

  /**
   * TF_VAR_<name> for each sensitive variable: the process environment only, because argv shows in
   * `ps` and in Terraform's own crash logs. Errors name the variable and where it was looked for.
   */
  async function sensitiveVariableEnv(workspace: WorkspaceConfig): Promise<Record<string, string>> {
    const entries = Object.entries(workspace.sensitiveVars ?? {});
    if (entries.length === 0) return {};
    const env: Record<string, string> = {};
    for (const [name, reference] of entries) {
      if (!options.resolveSecret)
        throw new TerraformRunError(
          'credentials',
          `sensitive variable ${name}: this runner cannot read secrets`,
        );
      try {
        env[`TF_VAR_${name}`] = await options.resolveSecret(reference);
      } catch (error) {
        throw new TerraformRunError(
          'credentials',
          `sensitive variable ${name}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    }
    return env;
  }

  let binaryCache: Promise<BinaryCache> | undefined;

  /**
   * The engine binary this workspace needs (engine-version.ts decides which version): the default
   * binary or `<name>-X.Y.Z` on PATH when it is that version, else a verified download from the
   * binary cache. Reading the root's version file and required_version costs no process.
   */
  async function resolveBinary(workspace: WorkspaceConfig, root: string): Promise<string> {
    const engine = workspace.engine ?? 'terraform';
    const name = engineBinaryName(engine);
    const defaultBinary =
      engine === 'opentofu' ? commandPath(options.tofuBinary ?? baseEnv.DRIFTWATCH_TOFU ?? 'tofu') : binary;
    const versionFile = await readFile(join(root, engineVersionFile(engine)), 'utf8').catch(() => undefined);
    const requiredVersions = await readRequiredVersions(root, { tofu: engine === 'opentofu' }).catch(
      () => [],
    );
    const decided = versionRequest({
      engine,
      ...(workspace.terraformVersion !== undefined ? { registry: workspace.terraformVersion } : {}),
      ...(versionFile !== undefined ? { versionFile } : {}),
      requiredVersions,
    });
    if ('problem' in decided)
      throw new TerraformRunError(
        'init',
        `${decided.problem}; correct it, or set terraformVersion in the registry`,
      );
    const { request } = decided;
    if (request.kind === 'default') return defaultBinary;

    let version: string;
    if (request.kind === 'exact') {
      version = request.version;
      for (const candidate of [`${name}-${version}`, defaultBinary])
        if ((await versionOf(candidate)) === version) return candidate;
    } else {
      const defaultVersion = await versionOf(defaultBinary);
      // required_version alone: the installed binary, when it satisfies, without asking the releases.
      if (request.preferDefault && defaultVersion && meetsRequest(request, defaultVersion))
        return defaultBinary;
      const cache = await openBinaryCache();
      const [cached, released] = await Promise.all([
        cache.cachedVersions(engine),
        cache.releasedVersions(engine),
      ]);
      const chosen = selectVersion(request, {
        known: [...cached, ...(released ?? [])],
        ...(defaultVersion ? { defaultVersion } : {}),
      });
      if (chosen === undefined)
        throw new TerraformRunError(
          'init',
          `no ${engine} version satisfies ${request.label} among ${released ? 'the releases' : 'the cached versions (the release index could not be read)'} and ${defaultBinary} ${defaultVersion ?? '(not installed)'}; pin an exact terraformVersion in the registry`,
        );
      if (chosen === defaultVersion) return defaultBinary;
      version = chosen;
    }
    const pinned =
      request.source === 'registry'
        ? `workspace pins ${engine} ${version}`
        : `${request.label} selects ${engine} ${version}`;
    try {
      return await (await openBinaryCache()).ensure(engine, version);
    } catch (error) {
      const reason = error instanceof BinaryInstallError ? error.reason : (error as Error).message;
      throw new TerraformRunError('init', `${pinned}: ${reason}`, { cause: error });
    }
  }

  function openBinaryCache(): Promise<BinaryCache> {
    binaryCache ??= options.binaryCache
      ? Promise.resolve(options.binaryCache)
      : binaryCacheOptionsFromEnv(baseEnv, pluginCacheDir, options.logger).then(createBinaryCache);
    // A configuration error (an unreadable key file) fails each scan with its message, not once forever.
    binaryCache.catch(() => {
      binaryCache = undefined;
    });
    return binaryCache.catch((error: unknown) => {
      throw new TerraformRunError('init', (error as Error).message, { cause: error });
    });
  }

  function versionOf(candidate: string): Promise<string | undefined> {
    let version = versions.get(candidate);
    if (!version) {
      version = (async () => {
        const dir = privateTempDir(workRoot, 'driftwatch-version-');
        const forgetDir = removeOnInterrupt(dir);
        const output = join(dir, 'version.json');
        try {
          const result = await runProcess(candidate, ['version', '-json'], {
            cwd: workRoot,
            env: { ...baseEnv, CHECKPOINT_DISABLE: '1' },
            timeoutMs: 30_000,
            stdoutFile: output,
          });
          if (result.exitCode !== 0) return undefined;
          return (JSON.parse(await readFile(output, 'utf8')) as { terraform_version?: string })
            .terraform_version;
        } catch {
          return undefined;
        } finally {
          await rm(dir, { recursive: true, force: true });
          forgetDir();
        }
      })();
      versions.set(candidate, version);
    }
    return version;
  }

  /** Where this workspace's runs install providers from (as terraformEnvironment decides it). */
  function providerSource(workspace: WorkspaceConfig): ProviderSource {
    return resolveProviderSource({
      configured: workspace.providerMirror,
      registryDir: options.registryDir,
      env: baseEnv,
    });
  }

  async function terraformEnv(
    workspace: WorkspaceConfig,
    credentials: WorkspaceCredentials | undefined,
    workDir: string,
    root: string,
  ): Promise<NodeJS.ProcessEnv> {
    // Nothing of driftwatch's own environment but the allowlist (run-environment.ts): no credentials,
    // variables or tokens meant for the scanner or another workspace.
    const env = isolateRunEnvironment(
      await terraformEnvironment({
        baseEnv,
        workDir,
        pluginCacheDir,
        extra: workspace.env,
        providerMirror: workspace.providerMirror,
        registryDir: options.registryDir,
        root,
      }),
      {
        ambient: process.env,
        keep: Object.keys(workspace.env ?? {}),
        assumedRole: credentials !== undefined,
      },
    );
    delete env.TF_WORKSPACE;
    if (workspace.backend.workspace) env.TF_WORKSPACE = workspace.backend.workspace;
    if (credentials) {
      // Only the assumed role's credentials: a profile or web identity in the parent would win otherwise.
      for (const name of ['AWS_PROFILE', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_ROLE_ARN', 'AWS_SESSION_TOKEN'])
        delete env[name];
      env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
      env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
      if (credentials.sessionToken) env.AWS_SESSION_TOKEN = credentials.sessionToken;
    }
    // Scans never prompt: a variable without a value fails the plan instead of waiting for input.
    env.TF_INPUT = '0';
    return env;
  }

  return { prepare };
}

/**
 * A source bundle that could not be downloaded, said with its URI: S3's own words ("The specified key
 * does not exist.") read as if the state were missing, and name neither the object nor the fix.
 */
function bundleDownloadProblem(uri: string, error: unknown, env: NodeJS.ProcessEnv): string {
  const fix = 'upload the workspace source there as a .tar.gz, or correct source.s3 in the registry';
  const code = errorCode(error);
  if (code === 'NoSuchKey') return `source bundle ${uri} does not exist: ${fix}`;
  if (code === 'NoSuchBucket') return `the bucket of source bundle ${uri} does not exist: ${fix}`;
  const described = describeAwsError(error, { env }) ?? (error as Error).message;
  return `could not download source bundle ${uri}: ${described}`;
}

/** A bundle that is no gzipped tar (`TAR_BAD_ARCHIVE`, zlib's `Z_DATA_ERROR`), or cut short. */
function bundleArchiveProblem(uri: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && /^(TAR_|Z_)/.test(code)) {
    // node-tar's messages start with their code already.
    const message = (error as Error).message.replace(`${code}: `, '');
    return `source bundle ${uri} is not a whole .tar.gz archive (${code}: ${message}): upload the workspace source as one, e.g. tar -czf bundle.tgz -C <root> .`;
  }
  return `could not unpack source bundle ${uri}: ${(error as Error).message}`;
}

/**
 * A binary given as a relative path (`DRIFTWATCH_TERRAFORM=./tools/terraform`) is meant from where
 * driftwatch was started; Terraform runs in the workspace's temporary copy, where it is not. A bare
 * name stays a name, looked up on PATH.
 */
function commandPath(command: string): string {
  return command.includes('/') ? resolve(command) : command;
}

/**
 * The engine binary could not be started: `spawn terraform ENOENT` says neither what is missing nor
 * how to provide it, and every workspace of the scan fails with it.
 */
function cannotStart(binary: string, stage: RunStage): (error: unknown) => never {
  return (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    const tofu = /^tofu/.test(basename(binary));
    const setting = tofu ? 'DRIFTWATCH_TOFU' : 'DRIFTWATCH_TERRAFORM';
    const install = tofu
      ? 'install OpenTofu (https://opentofu.org/docs/intro/install/)'
      : 'install Terraform >= 1.5 (https://developer.hashicorp.com/terraform/install)';
    // A name is looked up on PATH; a path (with a slash) is used as it is.
    const where = binary.includes('/') ? '' : ' on PATH';
    const reason =
      code === 'ENOENT'
        ? `${binary} was not found${where}: ${install}, or set ${setting} to its path`
        : code === 'EACCES'
          ? `${binary} cannot be executed (EACCES): make it executable, or set ${setting} to an executable ${tofu ? 'tofu' : 'terraform'}`
          : `could not run ${binary}: ${(error as Error).message}`;
    throw new TerraformRunError(stage, reason, { cause: error });
  };
}

/**
 * The variable arguments of every plan: var files first, then `vars`, because Terraform lets the
 * later of two command-line assignments win. Sensitive variables are never here (see the env).
 */
export function planVariableArgs(workspace: WorkspaceConfig, varFiles: readonly string[]): string[] {
  return [
    ...varFiles.map((file) => `-var-file=${file}`),
    ...Object.entries(workspace.vars ?? {}).map(([name, value]) => `-var=${name}=${value}`),
  ];
}

/**
 * Each of the workspace's var files, relative to the Terraform root (the plan's cwd), after checking
 * that it exists and, symlinks followed, stays inside the source. The registry already refuses '..'
 * and absolute paths; a bundle can still carry a symlink that points out.
 */
export async function locateVarFiles(
  workspace: WorkspaceConfig,
  sourceDir: string,
  root: string,
): Promise<string[]> {
  if (workspace.varFiles.length === 0) return [];
  const realSource = await realpath(sourceDir);
  const located: string[] = [];
  for (const file of workspace.varFiles) {
    const path = resolve(sourceDir, file);
    let real: string;
    try {
      real = await realpath(path);
      if (!(await stat(real)).isFile()) throw new Error('not a file');
    } catch {
      throw new TerraformRunError(
        'source',
        `var file ${file} is not a file in the workspace source (varFiles are relative to source.dir or the bundle root)`,
      );
    }
    if (!isWithin(real, realSource))
      throw new TerraformRunError('source', `var file ${file} leads outside the workspace source`);
    located.push(relative(root, path));
  }
  return located;
}

/**
 * Terraform's "No value for required variable" says what is missing but not where a scan takes
 * values from: name the registry keys, so the fix is one line of driftwatch.yaml.
 */
function withVariableHint(summary: string): string {
  if (!/No value for required variable/i.test(summary)) return summary;
  return `${summary} (give it in the registry entry: varFiles, vars, or sensitiveVars for a secret${inheritedVariableHint(summary, process.env)})`;
}

/**
 * A provider call that ended with its process, without a crash report: the provider did not panic,
 * which on a scanner is most often the out-of-memory killer taking the largest process (the AWS
 * provider, ~0.8 GB). Terraform says "Plugin did not respond" or, when the connection closed first,
 * "Request cancelled" (internal/plugin/grpc_error.go: codes Unavailable and Canceled), and points
 * only at "the plugin logs". A plan Terraform itself stopped ends by a signal and is reported before
 * this. The crash report ("plugin crashed!") is looked for in the whole stderr: the summary may be
 * cut before it.
 */
const PROVIDER_CALL_ENDED =
  /Plugin did not respond|The plugin\.\(\*GRPCProvider\)\.\w+ request was cancelled/;

export function withProviderExitHint(summary: string | undefined, stderr: string): string | undefined {
  if (summary === undefined || !PROVIDER_CALL_ENDED.test(summary) || /plugin crashed!/i.test(stderr))
    return summary;
  return `${summary}\n\n(driftwatch: a provider that stops answering without a crash report was killed, most often by the out-of-memory killer: each plan holds its providers in memory, the AWS provider ~0.8 GB; give the scanner more memory, or scan fewer workspaces at once with --concurrency)`;
}

/**
 * `Currently selected workspace "x" does not exist`: the workspace is the registry's
 * `backend.workspace` (TF_WORKSPACE), so that is where the fix is.
 */
export function missingWorkspaceHint(summary: string): string | undefined {
  const name = /Currently selected workspace "([^"]*)" does not exist/.exec(summary)?.[1];
  if (name === undefined) return undefined;
  return `${summary} (backend.workspace in the registry: no state of Terraform workspace "${name}" under this key and workspaceKeyPrefix; \`terraform workspace list\` in the root lists those there are)`;
}

/** The backend stays partial in real repositories: bucket, key and region come from the registry. */
export function backendConfigArgs(workspace: WorkspaceConfig): string[] {
  const { bucket, key, region, lockTable, workspaceKeyPrefix } = workspace.backend;
  const pairs: Array<[string, string]> = [
    ['bucket', bucket],
    ['key', key],
    ['region', region],
  ];
  if (workspaceKeyPrefix) pairs.push(['workspace_key_prefix', workspaceKeyPrefix]);
  if (lockTable) pairs.push(['dynamodb_table', lockTable]);
  return pairs.map(([name, value]) => `-backend-config=${name}=${value}`);
}

/**
 * The root must keep its state in an S3 backend, the one the registry names: without a backend
 * block Terraform plans against an empty local state and finds nothing (a scan that says "no
 * drift" without reading anything), and with another backend it reads another state or none.
 * A root the HCL reader cannot read is left to `terraform init`, which says what is wrong with it.
 */
export async function assertS3Backend(root: string, workspace: WorkspaceConfig): Promise<void> {
  const reading = await readBackendBlock(root, { tofu: workspace.engine === 'opentofu' }).catch(
    () => undefined,
  );
  if (!reading || reading.found === 's3') return;
  const state = `s3://${workspace.backend.bucket}/${stateObjectKey(workspace)}`;
  if (reading.found === 'several')
    throw new TerraformRunError(
      'source',
      `the root has ${reading.files.length} backend or cloud blocks (in ${[...new Set(reading.files)].join(', ')}), which Terraform refuses: keep the one backend "s3" block that keeps ${state}`,
    );
  const declared =
    reading.found === 'none'
      ? 'the root declares no backend, so Terraform would plan against an empty local state and find nothing'
      : reading.found === 'cloud'
        ? `${reading.file} has a cloud block, so Terraform would read the state HCP Terraform keeps`
        : `${reading.file} declares backend "${reading.type}", so Terraform would read the state that backend keeps`;
  const fix =
    reading.found === 'none'
      ? `add terraform { backend "s3" {} } to the root (driftwatch gives bucket, key and region from the registry)`
      : 'driftwatch scans roots whose state an S3 backend keeps: move the state to S3, or leave this workspace out of the registry';
  throw new TerraformRunError('source', `${declared}, not ${state}: ${fix}`);
}

/**
 * The configuration facts of a checked-out root module. A configuration the HCL reader cannot read
 * (or a build without the parser) leaves the scan without them: drift is then reported without
 * ignore_changes, which shows more, never less.
 */
async function readConfigurationFacts(
  rootDir: string,
  options: { tofu: boolean },
): Promise<ConfigurationFacts | undefined> {
  try {
    return (await readTerraformConfiguration(rootDir, options)).facts;
  } catch {
    return undefined;
  }
}

/** `15 min`, `90 s`, `0.4 s`: a command's time limit as a person reads it. */
function formatLimit(ms: number): string {
  return ms >= 120_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

/** The lines of a log file, streamed (a provider's debug log can be large); none when there is none. */
async function* readLines(path: string): AsyncGenerator<string> {
  if (!existsSync(path)) return;
  yield* createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
}

/**
 * Whether `path`, symlinks followed, is `dir` or below it. Terraform runs in the root and writes its
 * lock file there: a root that leads back into the checkout (or anywhere else) must not be used.
 */
async function isInside(path: string, dir: string): Promise<boolean> {
  const real = await realpath(path).catch(() => undefined);
  // A path that does not exist is judged as written (it fails later as "no Terraform files").
  return real === undefined ? isWithin(path, dir) : isWithin(real, await realpath(dir));
}

/**
 * A fresh directory only we can enter, whatever the umask. Synchronous so that the caller registers
 * it for removal in the same tick: a signal handled between an async mkdtemp and that registration
 * would leave the directory behind.
 */
function privateTempDir(parent: string, prefix: string): string {
  const dir = mkdtempSync(join(parent, prefix));
  chmodSync(dir, 0o700);
  markOwner(dir);
  return dir;
}

/**
 * The run's working directory, or a failed scan that names the directory and the fix: a TMPDIR that
 * does not exist or is full failed every workspace with `ENOENT: …, mkdtemp '…-XXXXXX'`.
 */
function workingDirectory(parent: string, prefix: string): string {
  try {
    return privateTempDir(parent, prefix);
  } catch (error) {
    throw new TerraformRunError(
      'source',
      `cannot create the scan's working directory in ${parent} (${directoryProblem(error)}): set TMPDIR to a writable directory with room for a checkout and its providers (~1 GB)`,
      { cause: error },
    );
  }
}

/** The shared plugin cache, created if need be, or a failed scan that names it and the fix (as TMPDIR's). */
async function ensurePluginCache(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true }).catch((error: unknown) => {
    throw new TerraformRunError(
      'init',
      `cannot use the plugin cache ${dir} (${directoryProblem(error)}): set TF_PLUGIN_CACHE_DIR to a writable directory with room for the providers (~1 GB)`,
      { cause: error },
    );
  });
}

/** What is wrong with a directory driftwatch could not create or write, in words. */
function directoryProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'it does not exist';
  if (code === 'ENOTDIR') return 'it, or a directory above it, is a file';
  if (code === 'ENOSPC') return 'it is full';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'it is not writable';
  return (error as Error).message;
}

/** Credential values handed to Terraform: redacted from anything it prints. */
function secretsIn(env: NodeJS.ProcessEnv): string[] {
  return ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_ACCESS_KEY_ID']
    .map((name) => env[name])
    .filter((value): value is string => Boolean(value && value.length >= 8));
}
