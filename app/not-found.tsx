export default function NotFound() {
  return (
    <div>
      <h1 className="text-2xl font-bold">Page not found</h1>
      <p className="mt-2">
        <a href="/" className="underline">
          Back to the start page
        </a>
      </p>
    </div>
  );
}
