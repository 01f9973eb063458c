declare module 'asl-validator' {
  interface ValidationResult {
    isValid: boolean;
    errors: { 'Error code': string; Message: string }[];
  }
  export default function validator(definition: unknown, options?: { checkArn?: boolean; checkPaths?: boolean }): ValidationResult;
}
