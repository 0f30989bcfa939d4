/** The most numbers GET /api/count/:n streams. */
export const MAX_COUNT = 1000;
