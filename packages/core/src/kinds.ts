import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { assertBackoffPolicy, type BackoffPolicy } from './backoff.ts';
import { InvalidArgumentError, UnknownKindError, ValidationError, type ValidationIssue } from './errors.ts';
import { assertJsonSize, assertJsonValue } from './json.ts';
import { assertOptionKeys } from './option-keys.ts';
import { assertPriority } from './priority.ts';
import { assertWholeNumber } from './whole-number.ts';

/** Per-kind policy; anything left out falls back to the queue's setting. */
export interface KindOptions {
  /** Claims allowed before the job is dead-lettered (1 = no retry). */
  maxAttempts?: number;
  /** Lease length: how long a claim stays valid without renewal. */
  visibilityMs?: number;
  /** Delay between attempts. */
  backoff?: BackoffPolicy;
  /** Upper bound on one attempt of a handler (enforced by the worker). */
  timeoutMs?: number;
  /**
   * The priority of this kind's jobs when an enqueue gives none: a whole number from -1000 to
   * 1000, higher claimed first. Default 0. (Kind-only: a queue has no default priority.)
   */
  priority?: number;
}

/**
 * A payload schema: a JSON Schema of `type: "object"`. (Typed loosely on purpose: checking a
 * literal against the full JSON Schema type costs the compiler far more than inferring from it.)
 */
export type PayloadSchema = { readonly type: 'object'; readonly [keyword: string]: unknown };

/** A kind: the JSON schema of its payload (an object schema), and its options. */
export interface KindDefinition extends KindOptions {
  readonly schema: PayloadSchema;
}

/** The definitions of a registry, by kind name. */
export type KindDefinitions = { readonly [kind: string]: KindDefinition };

/** The payload type of each kind of `D`, inferred from its JSON schema. */
export type PayloadMap<D extends KindDefinitions> = {
  [N in Extract<keyof D, string>]: D[N]['schema'] extends infer S extends JSONSchema ? FromSchema<S> : never;
};

/** The kind names of a registry's payload types. */
export type KindName<P> = Extract<keyof P, string>;

/** The payload type of kind `N`. */
export type PayloadOf<P, N extends KindName<P>> = P[N];

/** The payload types of a registry: `PayloadTypesOf<typeof kinds>`. */
export type PayloadTypesOf<K extends { readonly payloadTypes?: unknown }> = NonNullable<K['payloadTypes']>;

/** Kind names: a letter, then letters, digits, `_`, `.` or `-`, at most 64. */
export const KIND_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** Options of {@link defineKinds}. */
export interface DefineKindsOptions {
  /** Largest payload JSON accepted, in bytes. Default 512 KiB. */
  maxPayloadBytes?: number;
}

/** What {@link Kinds.decode} makes of a stored payload. */
export type DecodedPayload =
  | { ok: true; kind: string; payload: Record<string, unknown> }
  | { ok: false; kind: string | undefined; reason: string };

const DEFAULT_MAX_PAYLOAD_BYTES = 512 * 1024;

function toIssue(error: ErrorObject): ValidationIssue {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { pointer: `${error.instancePath}/${params.missingProperty}`, keyword: 'required', message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return { pointer: `${error.instancePath}/${params.additionalProperty}`, keyword: 'additionalProperties', message: 'is not allowed' };
  }
  return { pointer: error.instancePath, keyword: error.keyword, message: error.message ?? 'is invalid' };
}

/** Checks the options shared by kinds and queues; `prefix` names the field in errors. */
export function assertKindOptions(options: KindOptions, prefix: string): void {
  if (options.maxAttempts !== undefined) assertWholeNumber(`${prefix}.maxAttempts`, options.maxAttempts, 1, 1_000);
  if (options.visibilityMs !== undefined) assertWholeNumber(`${prefix}.visibilityMs`, options.visibilityMs, 1, 12 * 3_600_000);
  if (options.timeoutMs !== undefined) assertWholeNumber(`${prefix}.timeoutMs`, options.timeoutMs, 1, 24 * 3_600_000);
  if (options.backoff !== undefined) assertBackoffPolicy(options.backoff, `${prefix}.backoff`);
  if (options.priority !== undefined) assertPriority(`${prefix}.priority`, options.priority);
}

/**
 * A registry of job kinds: each kind's JSON schema is compiled once (ajv, strict, with formats),
 * its payload type is inferred from the schema, and its options are kept beside it.
 * Build one with {@link defineKinds}.
 */
export class Kinds<P> {
  /** The kind names, in definition order. */
  readonly names: readonly KindName<P>[];
  /** Largest payload JSON accepted, in bytes. */
  readonly maxPayloadBytes: number;
  /** Type-level only (never set): each kind's payload type, for {@link PayloadTypesOf}. */
  declare readonly payloadTypes?: P;
  readonly #definitions: KindDefinitions;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(definitions: KindDefinitions, options: DefineKindsOptions = {}) {
    if (typeof definitions !== 'object' || definitions === null) {
      throw new InvalidArgumentError('kinds', 'expected an object mapping kind names to { schema }');
    }
    assertOptionKeys<DefineKindsOptions>('options', options, { maxPayloadBytes: true });
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    assertWholeNumber('maxPayloadBytes', this.maxPayloadBytes, 1, 64 * 1024 * 1024);
    this.#definitions = definitions;
    const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats.default(ajv);
    for (const [kind, definition] of Object.entries(definitions)) {
      if (!KIND_NAME_PATTERN.test(kind)) {
        throw new InvalidArgumentError(`kinds.${kind}`, 'a kind name is a letter, then up to 63 letters, digits, "_", "." or "-"');
      }
      const schema = definition.schema as Record<string, unknown> | boolean;
      if (typeof schema !== 'object' || schema === null || schema.type !== 'object') {
        throw new InvalidArgumentError(`kinds.${kind}.schema`, 'a payload schema must have type "object" (the payload is a JSON object)');
      }
      const properties = schema.properties as Record<string, unknown> | undefined;
      if (properties && Object.hasOwn(properties, 'kind')) {
        throw new InvalidArgumentError(`kinds.${kind}.schema`, '"kind" is reserved: it carries the job\'s kind inside the stored payload');
      }
      assertOptionKeys<KindDefinition>(`kinds.${kind}`, definition, { schema: true, maxAttempts: true, visibilityMs: true, backoff: true, timeoutMs: true, priority: true });
      assertKindOptions(definition, `kinds.${kind}`);
      try {
        this.#validators.set(kind, ajv.compile(schema));
      } catch (error) {
        throw new InvalidArgumentError(`kinds.${kind}.schema`, (error as Error).message);
      }
    }
    this.names = Object.freeze(Object.keys(definitions)) as readonly KindName<P>[];
  }

  /** True when `kind` is defined here. */
  has(kind: unknown): kind is KindName<P> {
    return typeof kind === 'string' && this.#validators.has(kind);
  }

  /** The options of `kind` (throws {@link UnknownKindError} for an unknown one). */
  options(kind: string): KindOptions {
    if (!this.has(kind)) throw new UnknownKindError(kind, this.names);
    const { maxAttempts, visibilityMs, backoff, timeoutMs, priority } = this.#definitions[kind] as KindDefinition;
    return { ...(maxAttempts !== undefined && { maxAttempts }), ...(visibilityMs !== undefined && { visibilityMs }), ...(backoff !== undefined && { backoff }), ...(timeoutMs !== undefined && { timeoutMs }), ...(priority !== undefined && { priority }) };
  }

  /**
   * Checks `payload` against the schema of `kind` and returns it typed. Throws
   * {@link UnknownKindError}, or {@link ValidationError} listing every violation.
   */
  validate<N extends KindName<P>>(kind: N, payload: unknown, field = 'payload'): P[N] {
    const validator = this.#validators.get(kind);
    if (!validator) throw new UnknownKindError(String(kind), this.names);
    const issues: ValidationIssue[] = [];
    if (typeof payload === 'object' && payload !== null && !Array.isArray(payload) && Object.hasOwn(payload, 'kind')) {
      issues.push({ pointer: '/kind', keyword: 'reserved', message: 'is reserved: enqueue sets it from the kind argument' });
    }
    if (!validator(payload)) issues.push(...(validator.errors ?? []).map(toIssue));
    if (issues.length > 0) throw new ValidationError(kind, issues, field);
    return payload as P[N];
  }

  /**
   * The JSON stored for a job: `{"kind": kind, ...payload}`, as the recipe stores it, after
   * checking that the payload is plain JSON, within the size limit, and valid for its kind.
   */
  encode<N extends KindName<P>>(kind: N, payload: P[N], field = 'payload'): string {
    if (!this.has(kind)) throw new UnknownKindError(String(kind), this.names);
    assertJsonValue(payload, field);
    this.validate(kind, payload, field);
    return assertJsonSize(JSON.stringify({ kind, ...(payload as object) }), field, this.maxPayloadBytes);
  }

  /**
   * Reads a stored payload: parses it, routes it by its `kind` field (or `fallbackKind`, the
   * hash's kind field), and validates the rest against that kind's schema. Never throws:
   * a payload that cannot run says why, so the caller can fail the job with that reason.
   */
  decode(rawPayload: string | undefined, fallbackKind?: string): DecodedPayload {
    if (rawPayload === undefined) return { ok: false, kind: fallbackKind, reason: 'the job has no payload' };
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawPayload);
    } catch (error) {
      return { ok: false, kind: fallbackKind, reason: `the payload is not JSON: ${(error as Error).message}` };
    }
    return this.decodeParsed(parsed, fallbackKind);
  }

  /** {@link decode} for a payload already parsed from its JSON (as a claimed job's `payload` is). */
  decodeParsed(parsed: unknown, fallbackKind?: string): DecodedPayload {
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { ok: false, kind: fallbackKind, reason: 'the payload is not a JSON object' };
    }
    const { kind: payloadKind, ...payload } = parsed as Record<string, unknown>;
    const kind = typeof payloadKind === 'string' ? payloadKind : fallbackKind;
    if (kind === undefined) return { ok: false, kind, reason: 'the payload has no "kind" field' };
    if (!this.has(kind)) return { ok: false, kind, reason: new UnknownKindError(kind, this.names).message };
    try {
      this.validate(kind, payload);
    } catch (error) {
      return { ok: false, kind, reason: (error as Error).message };
    }
    return { ok: true, kind, payload };
  }
}

/**
 * Defines the job kinds of a queue. Each kind's payload type is inferred from its schema, so an
 * enqueue call or a handler map that does not match it is a compile error.
 *
 * @example
 * ```ts
 * const kinds = defineKinds({
 *   email: {
 *     schema: {
 *       type: 'object',
 *       properties: { recipient: { type: 'string', format: 'email' }, subject: { type: 'string' } },
 *       required: ['recipient'],
 *       additionalProperties: false,
 *     },
 *     maxAttempts: 5,
 *   },
 * });
 * ```
 */
export function defineKinds<const D extends KindDefinitions>(definitions: D, options: DefineKindsOptions = {}): Kinds<PayloadMap<D>> {
  return new Kinds<PayloadMap<D>>(definitions, options);
}
