import { useCallback, useSyncExternalStore } from 'react';
import type { ClockChoice, ZoneChoice } from '../i18n/time-format.ts';
import { readStored, writeStored } from './storage.ts';

// View preferences live in localStorage (never filters or pages: those are in the URL).

export const REFRESH_CHOICES = [0, 2, 5, 15, 60] as const;
export type RefreshSeconds = (typeof REFRESH_CHOICES)[number];
export type Theme = 'system' | 'light' | 'dark';
// The clock choices are the time formatting's own words (i18n/time-format.ts); the preference stores them.
export type { ClockChoice, ZoneChoice };

export interface Preferences {
  readonly refreshSeconds: RefreshSeconds;
  readonly pageSize: number;
  readonly wrapLogs: boolean;
  readonly theme: Theme;
  readonly timeZone: ZoneChoice;
  readonly clock: ClockChoice;
}

const KEY = 'pipeline-dashboard.preferences';
const DEFAULTS: Preferences = {
  refreshSeconds: 5,
  pageSize: 100,
  wrapLogs: false,
  theme: 'system',
  timeZone: 'service',
  clock: 'auto',
};

function isPreferences(value: unknown): value is Partial<Preferences> {
  return value !== null && typeof value === 'object';
}

let current: Preferences = {
  ...DEFAULTS,
  ...readStored<Partial<Preferences>>(localStorage, KEY, {}, isPreferences),
};
const listeners = new Set<() => void>();

export function setPreference<K extends keyof Preferences>(key: K, value: Preferences[K]): void {
  current = { ...current, [key]: value };
  writeStored(localStorage, KEY, current);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function usePreference<K extends keyof Preferences>(
  key: K,
): [Preferences[K], (value: Preferences[K]) => void] {
  const value = useSyncExternalStore(subscribe, () => current[key]);
  const set = useCallback((next: Preferences[K]) => setPreference(key, next), [key]);
  return [value, set];
}
