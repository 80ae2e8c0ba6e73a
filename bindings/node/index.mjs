// ESM entry: the same functions as index.js.
import ifscore from './index.js';

export const { getLoadablePath, load, version } = ifscore;
export default ifscore;
