import type { SVGProps } from 'react';

/** A few stroke icons (24×24, currentColor), decorative unless given a title by the caller. */
type IconProps = SVGProps<SVGSVGElement> & { size?: number };

function icon(paths: string[]) {
  return function Icon({ size = 18, ...props }: IconProps) {
    return (
      <svg
        width={size}
        height={size}
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth={2}
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        focusable="false"
        {...props}
      >
        {paths.map((d) => (
          <path key={d} d={d} />
        ))}
      </svg>
    );
  };
}

export const SunIcon = icon([
  'M12 17a5 5 0 1 0 0-10 5 5 0 0 0 0 10z',
  'M12 1v2M12 21v2M4.2 4.2l1.4 1.4M18.4 18.4l1.4 1.4M1 12h2M21 12h2M4.2 19.8l1.4-1.4M18.4 5.6l1.4-1.4',
]);
export const MoonIcon = icon(['M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z']);
export const MonitorIcon = icon(['M3 4h18v12H3z', 'M8 20h8', 'M12 16v4']);
export const CheckIcon = icon(['M20 6L9 17l-5-5']);
export const LanguageIcon = icon([
  'M4 5h7M9 3v2c0 4.4-2.2 8-5 9',
  'M5 9c0 2.1 2.9 3.9 6.4 4',
  'M12 20l4-9 4 9',
  'M19.1 18h-6.2',
]);
export const UserIcon = icon([
  'M20 21v-2a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v2',
  'M12 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z',
]);
export const DotsIcon = icon(['M12 5h.01M12 12h.01M12 19h.01']);
export const PlusIcon = icon(['M12 5v14M5 12h14']);
export const SendIcon = icon(['M22 2 11 13', 'M22 2 15 22l-4-9-9-4 20-7z']);
export const StopIcon = icon(['M6 6h12v12H6z']);
export const ChevronDownIcon = icon(['M6 9l6 6 6-6']);
export const ChevronRightIcon = icon(['M9 6l6 6-6 6']);
export const CopyIcon = icon(['M9 9h11v11H9z', 'M5 15H4V4h11v1']);
export const DownloadIcon = icon(['M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4', 'M7 10l5 5 5-5', 'M12 15V3']);
export const PrinterIcon = icon([
  'M6 9V2h12v7',
  'M6 18H4a2 2 0 0 1-2-2v-5a2 2 0 0 1 2-2h16a2 2 0 0 1 2 2v5a2 2 0 0 1-2 2h-2',
  'M6 14h12v8H6z',
]);
export const TrashIcon = icon(['M3 6h18', 'M8 6V4h8v2', 'M19 6l-1 14H6L5 6']);
export const PinIcon = icon(['M12 17v5', 'M9 3h6l-1 6 4 4v2H6v-2l4-4-1-6z']);
export const PencilIcon = icon(['M17 3l4 4L7 21H3v-4L17 3z']);
export const ArrowDownIcon = icon(['M12 5v14', 'M19 12l-7 7-7-7']);
export const ChartIcon = icon(['M3 3v18h18', 'M7 15l4-4 3 3 5-6']);
export const ChatIcon = icon(['M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z']);
export const ContinueIcon = icon(['M13 17l5-5-5-5', 'M6 17l5-5-5-5']);
export const ExternalIcon = icon([
  'M18 13v6a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h6',
  'M15 3h6v6',
  'M10 14L21 3',
]);
export const GlobeIcon = icon([
  'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z',
  'M2 12h20',
  'M12 2a15 15 0 0 1 0 20 15 15 0 0 1 0-20z',
]);
export const PuzzleIcon = icon(['M4 8h4a2 2 0 1 1 4 0h4v4a2 2 0 1 1 0 4v4H4z']);
export const TerminalIcon = icon(['M4 17l6-6-6-6', 'M12 19h8']);
export const ImageIcon = icon([
  'M3 3h18v18H3z',
  'M8.5 10a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3z',
  'M21 15l-5-5L5 21',
]);
export const SparkIcon = icon(['M12 3l2 5 5 2-5 2-2 5-2-5-5-2 5-2z']);
export const CodeIcon = icon(['M16 18l6-6-6-6', 'M8 6l-6 6 6 6']);
export const RefreshIcon = icon([
  'M23 4v6h-6',
  'M1 20v-6h6',
  'M3.5 9a9 9 0 0 1 14.9-3.4L23 10M1 14l4.6 4.4A9 9 0 0 0 20.5 15',
]);
export const MarkdownIcon = icon(['M3 5h18v14H3z', 'M6 15V9l3 3 3-3v6', 'M15 12l2 3 2-3', 'M17 9v6']);
export const PaperclipIcon = icon([
  'M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5',
]);
export const CloseIcon = icon(['M18 6L6 18', 'M6 6l12 12']);
export const ShareIcon = icon(['M4 12v8h16v-8', 'M16 6l-4-4-4 4', 'M12 2v13']);
export const UploadIcon = icon(['M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4', 'M17 8l-5-5-5 5', 'M12 3v12']);
