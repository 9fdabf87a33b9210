import { LOCATIONS } from "@/lib/catalog/catalog";

/** The catalog's locations as a labelled select, by city and country. */
export function LocationSelect(props: {
  id: string;
  value: string;
  onChange: (id: string) => void;
  className: string;
}) {
  return (
    <label htmlFor={props.id} className="text-sm font-medium">
      Location
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        className={props.className}
      >
        {LOCATIONS.map((l) => (
          <option key={l.id} value={l.id}>
            {l.city}, {l.country}
          </option>
        ))}
      </select>
    </label>
  );
}
