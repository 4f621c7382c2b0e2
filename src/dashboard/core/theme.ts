import { useEffect, useSyncExternalStore } from 'react';
import { usePreference } from './preferences.ts';

/** Applies the theme: the system's, unless the user picked light or dark. */
export function useThemeClass(): void {
  const [theme] = usePreference('theme');
  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => {
      const dark = theme === 'dark' || (theme === 'system' && media.matches);
      document.documentElement.classList.toggle('dark', dark);
      document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
    };
    apply();
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [theme]);
}

/**
 * Whether the page is dark now (the class useThemeClass sets), re-rendering when it changes:
 * for what draws its own colours (the charts).
 */
export function useDarkClass(): boolean {
  return useSyncExternalStore(
    (listener) => {
      const observer = new MutationObserver(listener);
      observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
      return () => observer.disconnect();
    },
    () => document.documentElement.classList.contains('dark'),
  );
}
