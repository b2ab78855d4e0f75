/** Where a repository keeps its taskgate configuration (on its default branch). */
export const CONFIG_PATH = ".github/taskgate.yml";
