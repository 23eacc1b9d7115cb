import type { OpenAPIObject } from '@nestjs/swagger';

// @nestjs/swagger does not export its schema types: taken from the document type.
type SchemaOrReference = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string];
type SchemaObject = Exclude<SchemaOrReference, { $ref: string }>;
type ReferenceObject = Extract<SchemaOrReference, { $ref: string }>;

/**
 * Small builders for the hand-written OpenAPI schemas of responses (`docs/openapi.json`). The response shapes are
 * plain interfaces in the domain, not classes, so their schemas are written here once and registered in
 * `components.schemas` by `buildOpenApiDocument`; routes point at them with `ref(name)`.
 */
export type Schema = SchemaObject | ReferenceObject;
export type Schemas = Readonly<Record<string, SchemaObject>>;

export const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/** An object whose properties are all required except those named in `optional`. */
export function object(
  properties: Record<string, Schema>,
  options: { readonly optional?: readonly string[]; readonly description?: string } = {},
): SchemaObject {
  const optional = new Set(options.optional ?? []);
  return {
    type: 'object',
    ...(options.description ? { description: options.description } : {}),
    properties,
    required: Object.keys(properties).filter((name) => !optional.has(name)),
  };
}

export const string = (description?: string, extra: SchemaObject = {}): SchemaObject => ({
  type: 'string',
  ...(description ? { description } : {}),
  ...extra,
});

export const integer = (description?: string): SchemaObject => ({
  type: 'integer',
  ...(description ? { description } : {}),
});

export const boolean = (description?: string): SchemaObject => ({
  type: 'boolean',
  ...(description ? { description } : {}),
});

export const stringEnum = (values: readonly string[], description?: string): SchemaObject => ({
  type: 'string',
  enum: [...values],
  ...(description ? { description } : {}),
});

export const arrayOf = (items: Schema, description?: string): SchemaObject => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});

/** `schema` or null (OpenAPI 3.0: `nullable` beside an `allOf` of the reference). */
export const nullable = (schema: Schema, description?: string): SchemaObject => ({
  nullable: true,
  ...(description ? { description } : {}),
  ...('$ref' in schema ? { allOf: [schema] } : schema),
});

/** An integer in the smallest unit as a decimal string (negative where a fee can be a reward). */
export const units = (description?: string): SchemaObject => string(description, { pattern: '^-?[0-9]+$' });

/** A decimal string (USD values, human units, percents). */
export const decimal = (description?: string): SchemaObject =>
  string(description, { pattern: '^-?[0-9]+(\\.[0-9]+)?$' });

export const hex32 = (description?: string): SchemaObject =>
  string(description, { pattern: '^0x[0-9a-fA-F]{64}$' });
