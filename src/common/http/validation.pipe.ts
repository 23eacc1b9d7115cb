import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError } from './api-error.js';

export interface FieldProblem {
  readonly field: string;
  readonly problems: string[];
}

/** Flattens class-validator's nested errors into `[{field: 'a.b[0].c', problems}]`. */
export function fieldProblems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent
      ? /^\d+$/.test(error.property)
        ? `${parent}[${error.property}]`
        : `${parent}.${error.property}`
      : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

/**
 * The one validation pipe: DTOs are validated strictly, unknown parameters are dropped rather than refused (clients
 * such as the Relay SDK add fields of their own), and problems answer 400 INVALID_INPUT listing each field.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const problems = fieldProblems(errors);
      const summary = problems.map((p) => `${p.field}: ${p.problems.join(', ')}`).join('; ');
      return new ApiError('INVALID_INPUT', `Invalid input: ${summary}`, problems);
    },
  });
}
