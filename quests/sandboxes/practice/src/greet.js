// How the app greets people.

export function greet(name) {
  return `Hello, ${name}!`;
}
