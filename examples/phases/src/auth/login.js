// Checks a username/password pair against the user store.
export async function login(store, username, password) {
  const user = await store.findUser(username);
  if (!user) return { ok: false, error: "unknown user" };
  const ok = await store.verifyPassword(user, password);
  return ok ? { ok: true, user: { id: user.id, name: user.name } } : { ok: false, error: "wrong password" };
}
