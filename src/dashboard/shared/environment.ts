// Which service a page is about, said in words and colour everywhere an operator could act on
// the wrong one: the header's band, the tab's title, every dialog. No browser APIs but
// `document.title` in the hook.
import { useEffect } from 'react';
import type { ServiceInfo } from '../../kit/index.ts';

/**
 * A label that names production (`production`, `prod`, `Prod-JP`…): its band is the strong
 * one. The services file has no separate environment field, so its `label` is that notion.
 */
export function isProduction(service: Pick<ServiceInfo, 'label'>): boolean {
  return /prod/i.test(service.label);
}

/** Class sets of one colour: strong (production) and soft (any other environment). */
interface Tone {
  readonly strong: string;
  readonly soft: string;
  readonly strip: string;
}

// Literal class names, so that Tailwind finds them; the Content Security Policy allows no
// inline style, so a `#hex` colour of the services file falls back to the neutral tone. White
// on every 700 shade and each 900 shade on its 100 stay above 4.5:1.
const TONES: Readonly<Record<string, Tone>> = {
  red: {
    strong: 'bg-red-700 text-white',
    soft: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-100',
    strip: 'bg-red-500',
  },
  orange: {
    strong: 'bg-orange-700 text-white',
    soft: 'bg-orange-100 text-orange-900 dark:bg-orange-950 dark:text-orange-100',
    strip: 'bg-orange-500',
  },
  amber: {
    strong: 'bg-amber-700 text-white',
    soft: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-100',
    strip: 'bg-amber-400',
  },
  yellow: {
    strong: 'bg-yellow-700 text-white',
    soft: 'bg-yellow-100 text-yellow-900 dark:bg-yellow-950 dark:text-yellow-100',
    strip: 'bg-yellow-400',
  },
  green: {
    strong: 'bg-emerald-700 text-white',
    soft: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100',
    strip: 'bg-emerald-500',
  },
  teal: {
    strong: 'bg-teal-700 text-white',
    soft: 'bg-teal-100 text-teal-900 dark:bg-teal-950 dark:text-teal-100',
    strip: 'bg-teal-500',
  },
  blue: {
    strong: 'bg-blue-700 text-white',
    soft: 'bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-100',
    strip: 'bg-blue-500',
  },
  purple: {
    strong: 'bg-violet-700 text-white',
    soft: 'bg-violet-100 text-violet-900 dark:bg-violet-950 dark:text-violet-100',
    strip: 'bg-violet-500',
  },
  pink: {
    strong: 'bg-pink-700 text-white',
    soft: 'bg-pink-100 text-pink-900 dark:bg-pink-950 dark:text-pink-100',
    strip: 'bg-pink-500',
  },
  gray: {
    strong: 'bg-slate-700 text-white',
    soft: 'bg-slate-200 text-slate-900 dark:bg-slate-800 dark:text-slate-100',
    strip: 'bg-slate-400',
  },
};
const ALIASES: Readonly<Record<string, string>> = { violet: 'purple', grey: 'gray' };

function toneOf(service: Pick<ServiceInfo, 'color' | 'label'>): Tone {
  const name = service.color.toLowerCase();
  // Production without a colour of its own is still red: it must never look like the rest.
  const fallback = isProduction(service) ? 'red' : 'gray';
  return TONES[ALIASES[name] ?? name] ?? (TONES[fallback] as Tone);
}

/** The classes of a service's band: production strong, any other soft, in its colour. */
export function bandClasses(service: Pick<ServiceInfo, 'color' | 'label'>): string {
  const tone = toneOf(service);
  return isProduction(service) ? tone.strong : tone.soft;
}

/** The small strip beside a service's name (always with the name: never colour alone). */
export function stripClass(service: Pick<ServiceInfo, 'color' | 'label'>): string {
  return toneOf(service).strip;
}

/**
 * Whether a service needs telling apart at all: one of several, or one with a label or a
 * colour. A lone embedded service with neither is the plain dashboard it always was.
 */
export function needsMarking(service: ServiceInfo, count: number): boolean {
  return count > 1 || service.label !== '' || service.color !== '';
}

/** A service as a tab's title and a dialog name it: "Tokyo prod (production)". */
export function serviceTitle(service: Pick<ServiceInfo, 'name' | 'label'>): string {
  return service.label ? `${service.name} (${service.label})` : service.name;
}

/** The tab's title: the page first, then the service when there is one to name. */
export function documentTitle(parts: readonly (string | undefined)[]): string {
  return parts.filter((p): p is string => p !== undefined && p !== '').join(' · ');
}

/** Keeps `document.title` as given while the caller is shown. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title;
  }, [title]);
}
