import 'reflect-metadata';
import { DECORATORS } from '@nestjs/swagger';
import { IS_URL, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { ISchemaConverters } from 'class-validator-jsonschema/build/defaultConverters';

/** A JSON Schema of an object, as MCP's tool `inputSchema` and `outputSchema` take it. */
export interface ObjectSchema {
  [keyword: string]: unknown;
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
}

type Constructor = abstract new (...args: never[]) => unknown;
type SchemaObject = Record<string, unknown>;
type RuleSchema = ReturnType<typeof targetConstructorToSchema>;

// Our own validators, which the library only knows as "custom"; their rules in JSON Schema.
const CUSTOM: Record<string, RuleSchema> = {
  isInstant: { type: 'string' },
  isCalendarDay: { type: 'string', format: 'date' },
  // Any integer: sizes out of range are clamped, never refused.
  isCount: { type: 'integer' },
  // A rule between two fields that JSON Schema cannot state; the validator still applies it.
  isAfterField: {},
};

const converters: ISchemaConverters = {
  [ValidationTypes.CUSTOM_VALIDATION]: (meta: ValidationMetadata) =>
    meta.name ? CUSTOM[meta.name] : undefined,
  // class-validator-jsonschema says "url", which JSON Schema validators need not know.
  [IS_URL]: { type: 'string', format: 'uri' },
};

/**
 * The JSON Schema of a DTO, from the class-validator rules that validate it (so a tool
 * states exactly what the endpoint accepts), with the descriptions, defaults and
 * examples of its Swagger properties.
 */
export function dtoSchema(dto: Constructor): ObjectSchema {
  const schema = targetConstructorToSchema(dto, { additionalConverters: converters });
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, rules]) => [
      name,
      withSwaggerDocs(dto, name, rules as SchemaObject),
    ]),
  );
  return {
    type: 'object',
    properties,
    ...(schema.required?.length ? { required: schema.required } : {}),
  };
}

/** An object schema with one property, an array of `item`. */
export function listSchema(
  name: string,
  item: Constructor,
  extra: Record<string, object> = {},
): ObjectSchema {
  return {
    type: 'object',
    properties: { [name]: { type: 'array', items: dtoSchema(item) }, ...extra },
    required: [name],
  };
}

interface SwaggerProperty {
  description?: string;
  default?: unknown;
  example?: unknown;
  nullable?: boolean;
  format?: string;
}

function withSwaggerDocs(dto: Constructor, name: string, rules: SchemaObject): SchemaObject {
  const docs = Reflect.getMetadata(
    DECORATORS.API_MODEL_PROPERTIES,
    dto.prototype as object,
    name,
  ) as SwaggerProperty | undefined;
  if (!docs) return rules;
  const { description, example, nullable, format } = docs;
  const schema: SchemaObject = { ...rules };
  if (description !== undefined) schema.description = description;
  if (docs.default !== undefined) schema.default = docs.default;
  if (example !== undefined) schema.examples = [example];
  if (format !== undefined && schema.format === undefined) schema.format = format;
  if (nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  return schema;
}
