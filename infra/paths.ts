import { fileURLToPath } from 'node:url';

/** The repository root: handler entry points, the Dockerfile and package-lock.json are found from it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
