/** Saves text as a file through the browser's download. */
export function downloadText(fileName: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // The click has started the download by the next task; the URL can go then.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
