import { render } from 'preact';
import { useState } from 'preact/hooks';
import { invalidateQueries, useMutation, useQuery } from 'platform/client';
import { MAX_UPLOAD_BYTES, NAME_HEADER } from '../shared/files';
import './style.css';

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function App() {
  const files = useQuery('files.list', {});
  const remove = useMutation('files.remove');
  const [status, setStatus] = useState<string | undefined>();

  const upload = async (event: Event) => {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > MAX_UPLOAD_BYTES) return setStatus(`${file.name} is over ${size(MAX_UPLOAD_BYTES)}.`);
    setStatus(`Uploading ${file.name}…`);
    const response = await fetch('/api/files', { method: 'POST', body: file, headers: { 'content-type': file.type || 'application/octet-stream', [NAME_HEADER]: file.name } });
    setStatus(response.ok ? `Uploaded ${file.name}.` : `Upload failed (${response.status}).`);
    input.value = '';
    // Endpoint writes do not refresh queries by themselves.
    invalidateQueries(['files']);
  };

  return (
    <main>
      <h1>Files</h1>
      <label class="upload">
        Upload a file (up to {size(MAX_UPLOAD_BYTES)})
        <input type="file" onChange={upload} />
      </label>
      {status && <p role="status">{status}</p>}
      {files.error && <p class="error">{files.error.message}</p>}
      <table>
        <tbody>
          {files.data?.map((file) => (
            <tr key={file.id}>
              <td>
                <a href={`/api/files/${encodeURIComponent(file.id)}`}>{file.name}</a>
              </td>
              <td>{size(file.size)}</td>
              <td>
                <button type="button" onClick={() => void remove({ id: file.id })}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {files.data?.length === 0 && <p class="muted">No files yet.</p>}
    </main>
  );
}

render(<App />, document.getElementById('app')!);
