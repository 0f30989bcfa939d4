/**
 * The project the shell opens: a small todo app. The templates gallery replaces it when the templates
 * arrive; until then it is the compiler's own base fixture, so what the shell shows is what is tested.
 */
import { baseApp } from '../core/analyze/__fixtures__/base-app';

export const STARTER_FILES: Record<string, string> = baseApp();
