// The types of manifest-validator.generated.js (written by scripts/manifest-validator.ts).
import type { ValidateFunction } from 'ajv/dist/2020.js';
declare const validate: ValidateFunction;
export default validate;
