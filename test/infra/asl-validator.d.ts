// asl-validator 4 ships no type declarations: the part of its API the infra tests use.
declare module 'asl-validator' {
  interface ValidationResult {
    isValid: boolean;
    errors: unknown[];
    errorsText(separator?: string): string;
  }
  export default function aslValidator(
    definition: unknown,
    options?: { checkPaths?: boolean; checkArn?: boolean },
  ): ValidationResult;
}
