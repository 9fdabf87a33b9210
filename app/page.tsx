export default function HomePage() {
  return <h1 className="text-3xl font-bold">Prepaid VPS</h1>;
}
