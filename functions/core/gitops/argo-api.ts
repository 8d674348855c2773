/**
 * The parts of Argo CD's REST API that driftwatch reads, validated loosely: unknown fields pass
 * (Argo CD adds fields every release), but a response without the fields a decision needs is an
 * `invalid-response` failure, never a guess.
 */
import * as z from 'zod/mini';

const optionalText = z.optional(z.nullable(z.string()));
const optionalFlag = z.optional(z.nullable(z.boolean()));

const automatedSchema = z.looseObject({
  prune: optionalFlag,
  selfHeal: optionalFlag,
  allowEmpty: optionalFlag,
  /** Argo CD 3.x: `false` keeps the block but switches automated sync off. */
  enabled: optionalFlag,
});

const sourceSchema = z.looseObject({
  repoURL: optionalText,
  path: optionalText,
  chart: optionalText,
  targetRevision: optionalText,
});

const applicationResourceSchema = z.looseObject({
  group: optionalText,
  version: optionalText,
  kind: z.string(),
  namespace: optionalText,
  name: z.string(),
  status: optionalText,
  requiresPruning: optionalFlag,
  hook: optionalFlag,
  health: z.optional(z.nullable(z.looseObject({ status: optionalText, message: optionalText }))),
});

export const applicationSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string(), namespace: optionalText }),
  spec: z.optional(
    z.nullable(
      z.looseObject({
        project: optionalText,
        source: z.optional(z.nullable(sourceSchema)),
        sources: z.optional(z.nullable(z.array(sourceSchema))),
        syncPolicy: z.optional(
          z.nullable(
            z.looseObject({
              automated: z.optional(z.nullable(automatedSchema)),
              syncOptions: z.optional(z.nullable(z.array(z.string()))),
            }),
          ),
        ),
      }),
    ),
  ),
  status: z.optional(
    z.nullable(
      z.looseObject({
        sync: z.optional(z.nullable(z.looseObject({ status: optionalText, revision: optionalText }))),
        health: z.optional(z.nullable(z.looseObject({ status: optionalText, message: optionalText }))),
        conditions: z.optional(
          z.nullable(
            z.array(
              z.looseObject({ type: z.string(), message: optionalText, lastTransitionTime: optionalText }),
            ),
          ),
        ),
        resources: z.optional(z.nullable(z.array(applicationResourceSchema))),
        /** Argo CD 3.x: `appTree` when resource health lives in its resource tree, not in `resources`. */
        resourceHealthSource: optionalText,
        reconciledAt: optionalText,
        /** Argo CD 2.5+: the namespace of the application controller (see applicationName). */
        controllerNamespace: optionalText,
        operationState: z.optional(
          z.nullable(z.looseObject({ phase: optionalText, message: optionalText, finishedAt: optionalText })),
        ),
      }),
    ),
  ),
});
export type ArgoApplication = z.infer<typeof applicationSchema>;
export type ArgoApplicationResource = z.infer<typeof applicationResourceSchema>;

/**
 * `GET /api/v1/applications`: Argo CD sends `"items": null` for an empty list. Only each item's
 * name and namespace (and where its controller is, to name an application whose read fails) are
 * read from it (each application is read again on its own, and validated then): one application of
 * an odd shape fails itself, not the list of all the others.
 */
export const applicationListSchema = z.looseObject({
  items: z.optional(
    z.nullable(
      z.array(
        z.looseObject({
          metadata: z.looseObject({ name: z.string(), namespace: optionalText }),
          status: z.optional(z.unknown()),
        }),
      ),
    ),
  ),
});

/** One item of `GET /api/v1/applications/{name}/managed-resources`; each state is a JSON string. */
const resourceDiffSchema = z.looseObject({
  group: optionalText,
  kind: z.string(),
  namespace: optionalText,
  name: z.string(),
  targetState: optionalText,
  liveState: optionalText,
  normalizedLiveState: optionalText,
  predictedLiveState: optionalText,
  hook: optionalFlag,
  /** Argo CD's own verdict: the normalised live state differs from the predicted one. */
  modified: optionalFlag,
});
export type ResourceDiff = z.infer<typeof resourceDiffSchema>;

export const managedResourcesSchema = z.looseObject({
  items: z.optional(z.nullable(z.array(resourceDiffSchema))),
});

/**
 * `GET /api/v1/settings` (server/settings/settings.proto): the tracking settings of argocd-cm.
 * Everything optional: older servers send fewer fields.
 */
export const settingsSchema = z.looseObject({
  trackingMethod: optionalText,
  appLabelKey: optionalText,
  installationID: optionalText,
});

export class InvalidArgoResponseError extends Error {
  constructor(what: string, problems: string) {
    super(`unexpected ${what} from Argo CD: ${problems}`);
    this.name = 'InvalidArgoResponseError';
  }
}

/** Validates a response body against a schema; the message names the first fields that are wrong. */
export function parseArgoResponse<T>(
  schema: {
    safeParse(value: unknown): { success: true; data: T } | { success: false; error: z.core.$ZodError };
  },
  body: unknown,
  what: string,
): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  throw new InvalidArgoResponseError(what, problems);
}
