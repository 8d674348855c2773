import { ClusterSourceError } from '../core/gitops/ports.js';

/**
 * One segment of a Kubernetes or Argo CD API path, from a name the render, the registry or a
 * server gave. Percent-encoding alone is not enough: `.` and `..` are left as they are and the URL
 * parser then resolves them (`…/configmaps/..` reads the namespace, `namespaces/../configmaps/x`
 * every namespace's), and `/` or `%` would be decoded by the server into another path. The API
 * server refuses such names for every kind (apimachinery's `IsValidPathSegmentName`), so an object
 * named so cannot exist and `kubectl apply` would reject it: it is an error naming the value, and
 * the request is never sent.
 */
export function pathSegment(value: string, what: string): string {
  const problem =
    value === ''
      ? 'is empty'
      : value === '.' || value === '..'
        ? `may not be '${value}'`
        : /[/%]/.test(value)
          ? `may not contain '${value.includes('/') ? '/' : '%'}'`
          : undefined;
  if (problem !== undefined)
    throw new ClusterSourceError(
      'failed',
      `the ${what} ${JSON.stringify(value)} is not a valid Kubernetes name: it ${problem} (the API server refuses it for every kind, and kubectl apply would); correct it in the manifests or the registry`,
    );
  return encodeURIComponent(value);
}
