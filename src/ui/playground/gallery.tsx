/** The start page: a template to begin from, or a project to reopen. */
import { useEffect, useState } from 'preact/hooks';
import { deleteProject, listProjects, type ProjectSummary } from '../projects/store';
import { TEMPLATES, type PlaygroundTemplate } from '../projects/templates';

export function Gallery({ onCreate, onOpen }: { onCreate(template: PlaygroundTemplate): void; onOpen(id: string): void }) {
  const [projects, setProjects] = useState<ProjectSummary[] | undefined>();
  const [confirming, setConfirming] = useState<string | undefined>();
  useEffect(() => void listProjects().then(setProjects), []);

  return (
    <div class="gallery">
      <section aria-labelledby="templates-heading">
        <h2 id="templates-heading">Start from a template</h2>
        <ul class="template-grid">
          {TEMPLATES.map((template) => (
            <li key={template.id}>
              <button type="button" class="template-card" onClick={() => onCreate(template)} data-template={template.id}>
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
                <button type="button" class="link" onClick={() => onOpen(project.id)}>
                  {project.title}
                </button>
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
                ) : (
                  <button type="button" class="link" aria-label={`Delete ${project.title}`} onClick={() => setConfirming(project.id)}>
                    Delete…
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
