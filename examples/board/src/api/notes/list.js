// GET /notes: every note, newest first.
export async function listNotes(store) {
  const notes = await store.allNotes();
  return notes.toSorted((a, b) => b.createdAt - a.createdAt);
}
