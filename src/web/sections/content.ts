// Information pages and the design reference pages.
export { AboutPage, FaqPage, PrivacyPage, ImprintPage, DownloadsPage, InterviewInfoPage } from '../features/content/ContentPage';
export { LayoutSamplePage, SamplePage, SamplePage2, AllImagesPage } from '../features/content/SamplePages';
