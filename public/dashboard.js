// The dashboard works without this file; it only adds the copy button and a
// confirmation before revoking a key.
document.addEventListener('click', async (event) => {
  const button = event.target.closest('[data-copy]');
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  const text = source.textContent.trim();
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission: select the text so that Ctrl-C copies it.
    const range = document.createRange();
    range.selectNodeContents(source);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
  }
  button.textContent = 'Copied';
  button.classList.add('copied');
  setTimeout(() => {
    button.textContent = 'Copy';
    button.classList.remove('copied');
  }, 2000);
});

document.addEventListener('submit', (event) => {
  const message = event.target.dataset.confirm;
  if (message && !confirm(message)) event.preventDefault();
});
