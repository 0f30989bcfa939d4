/** The template catalogue. The folder's entry: what the rest of the code base imports of it. */
export { CATALOGUE_ID, CATALOGUE_PATH, CATALOGUE_PROTOCOL, type CatalogueEntry, installFiles, readCatalogue } from './catalogue.ts';
