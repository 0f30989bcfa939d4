/** A generation (one servable build: its manifest and its files by artifact path) and what two of them share. The folder's entry: what the rest of the code base imports of it. */
export { CLIENT_BUNDLE, CLIENT_MAP, CLIENT_STYLES, clientPage, type Generation, generationText, PUBLIC_PREFIX, publicTexts, sameClient, sameServer, SERVER_BUNDLE, SERVER_MAP } from './generation.ts';
