import { useEffect } from 'react';
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
