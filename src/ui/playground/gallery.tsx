/**
 * The start page: what the playground is, a link to the docs (docs/, served with the playground under
 * /docs/: vite/docs-plugin.ts), a blank project or a template to begin from, or a project to reopen
 * (a link: it opens in a new tab too), rename, duplicate or delete.
 */
import { useEffect, useState } from 'preact/hooks';
import { openDuplicate, RenameForm } from '../projects/project-actions';
import { deleteProject, listProjects, type ProjectSummary } from '../projects/store';
import { BLANK_TEMPLATE, TEMPLATES, type PlaygroundTemplate } from '../projects/templates';
import { filesDigest, isTemplateFiles } from '../projects/known-good';
import { prefetchPrebuilt } from '../compiler-client';
import { prepareRuntime } from '../runtime/runtime-host';
import { whenIdleInSteps } from '../idle';

/**
 * What opening a template needs, made while the start page is idle: each template's digest and its
 * prebuilt bundles (small chunks), and a runtime sandbox with sql.js compiled that holds no app yet
 * (the next project's runtime takes it). A click then waits for none of them. Each step is small
 * and runs in its own idle slice: a click (a person's, early) waits for one step at most.
 */
function prepareTemplateOpen(): void {
  whenIdleInSteps([
    // One template's digest per step (the digests are kept by files object: the later lookups reuse them).
    ...TEMPLATES.map((template) => () => void filesDigest(template.files)),
    () => void isTemplateFiles({}),
    // The workspace's file tree sorts names with localeCompare: ICU's collator is made on its first use (about 10 ms).
    () => void 'a'.localeCompare('b'),
    ...TEMPLATES.map((template) => () => prefetchPrebuilt([template.files])),
    prepareRuntime,
  ]);
}

export function Gallery({ onCreate }: { onCreate(template: PlaygroundTemplate): void }) {
  const [projects, setProjects] = useState<ProjectSummary[] | undefined>();
  const [confirming, setConfirming] = useState<string | undefined>();
  const [renaming, setRenaming] = useState<string | undefined>();
  useEffect(() => void listProjects().then(setProjects), []);
  useEffect(() => {
    performance.mark('platform:gallery-ready');
    // After the page's load event: a frame made before it would hold the event back until the frame loaded.
    if (document.readyState === 'complete') prepareTemplateOpen();
    else addEventListener('load', prepareTemplateOpen, { once: true });
  }, []);

  return (
    <div class="gallery">
      <section class="gallery-intro" aria-label="About the playground">
        <p>
          The playground builds and runs apps for the platform in your browser: a server of queries and mutations over its own database, a client that calls them, and
          tests, previewed as several people side by side. Projects are kept in this browser; start from a blank project or a template, and share one as a link.
        </p>
        <p>
          <a href="/docs/">Read the docs</a>
          <span class="muted"> on writing an app, the playground, the CLI and deploying.</span>
        </p>
      </section>
      <section aria-labelledby="templates-heading">
        <h2 id="templates-heading">Start a project</h2>
        <ul class="template-grid">
          {TEMPLATES.map((template) => (
            <li key={template.id}>
              <button type="button" class={`template-card${template.id === BLANK_TEMPLATE ? ' blank' : ''}`} onClick={() => onCreate(template)} data-template={template.id}>
                <strong>{template.title}</strong>
                <span>{template.description}</span>
                {template.teaches && <span class="template-teaches">Teaches: {template.teaches}</span>}
                <code>{template.id}</code>
              </button>
            </li>
          ))}
        </ul>
      </section>
      {projects && projects.length > 0 && (
        <section aria-labelledby="projects-heading">
          <h2 id="projects-heading">Your projects</h2>
          <ul class="project-list">
            {projects.map((project) => (
              <li key={project.id}>
                {renaming === project.id ? (
                  <RenameForm
                    id={project.id}
                    title={project.title}
                    onDone={(name) => {
                      setRenaming(undefined);
                      if (name !== undefined) void listProjects().then(setProjects);
                    }}
                  />
                ) : (
                  <a class="project-link" href={`#/p/${project.id}`}>
                    {project.title}
                  </a>
                )}
                <span class="muted">
                  {project.template ? `${project.template} · ` : ''}edited {new Date(project.updatedAt).toLocaleString()}
                </span>
                {confirming === project.id ? (
                  <span class="confirm">
                    Delete it and its data?{' '}
                    <button
                      type="button"
                      class="danger"
                      onClick={() =>
                        void deleteProject(project.id).then(async () => {
                          setConfirming(undefined);
                          setProjects(await listProjects());
                        })
                      }
                    >
                      Delete
                    </button>{' '}
                    <button type="button" onClick={() => setConfirming(undefined)}>
                      Keep
                    </button>
                  </span>
                ) : renaming === project.id ? null : (
                  <span class="project-actions">
                    <button type="button" class="link" aria-label={`Rename ${project.title}`} onClick={() => setRenaming(project.id)}>
                      Rename…
                    </button>
                    <button type="button" class="link" aria-label={`Duplicate ${project.title}`} onClick={() => void openDuplicate(project.id)}>
                      Duplicate
                    </button>
                    <button type="button" class="link" aria-label={`Delete ${project.title}`} onClick={() => setConfirming(project.id)}>
                      Delete…
                    </button>
                  </span>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
