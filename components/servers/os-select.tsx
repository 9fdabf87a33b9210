import { OS_IMAGES } from "@/lib/catalog/catalog";
import { INPUT_STYLE } from "../ui/field";

/** The operating systems; one this deployment has no image for is listed but cannot be chosen. */
export function OsSelect(props: {
  id: string;
  value: string;
  onChange: (id: string) => void;
  unavailable: string[];
}) {
  return (
    <label htmlFor={props.id} className="text-sm font-medium">
      Operating system
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        className={INPUT_STYLE}
      >
        {OS_IMAGES.map((os) => (
          <option key={os.id} value={os.id} disabled={props.unavailable.includes(os.id)}>
            {os.name}
            {props.unavailable.includes(os.id) ? " (not available here)" : ""}
          </option>
        ))}
      </select>
    </label>
  );
}
