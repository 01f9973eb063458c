import type { Plugin } from 'esbuild';

export function fnv1a(text: string): string;
export function precompiledValidators(functions: Record<string, { handler?: string; events?: unknown[] }>): Plugin;
export function builtinsThroughRequire(): Plugin;
export function builtinModule(name: string): string;
export function credentialsFromEnvironment(): Plugin;
export function buildTimeValues(): Plugin;
export default function plugins(serverless: { service: { functions?: Record<string, unknown> } }): Plugin[];
